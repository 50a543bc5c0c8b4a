// How a result is shown, as one line of words: "bar x=?accelerator y=?value color=?status
// unit=tok/s log"; a line chart may draw one line per value of a series column, coloured by
// another: "line x=?count y=?share color=?status series=?line". Saved queries name their
// first view so in a `# view:` header line (query/saved.py reads it there); the page's
// shareable URLs carry it the same way, with the columns whose values make one comparable
// group (a saved query's `# group:` line, web/ui.py): "group=?model,?scenario".
(function () {
  "use strict";
  var TYPES = ["table", "bar", "line", "scatter"];
  var COLUMNS = ["x", "y", "color", "series", "unit"];

  // {type, x, y, color, series, unit, unitText, group, log}; words it does not know are
  // ignored.
  function parse(text) {
    var view = {};
    String(text || "").trim().split(/\s+/).forEach(function (word, i) {
      var eq = word.indexOf("=");
      var key = eq < 0 ? word : word.slice(0, eq);
      var value = eq < 0 ? "" : word.slice(eq + 1);
      if (i === 0 && TYPES.indexOf(word) >= 0) {
        view.type = word;
      } else if (word === "log") {
        view.log = true;
      } else if (COLUMNS.indexOf(key) >= 0 && /^[?$]\w+$/.test(value)) {
        view[key] = value.slice(1);
      } else if (key === "group" && /^[?$]\w+(,[?$]\w+)*$/.test(value)) {
        view.group = value.split(",").map(function (v) { return v.slice(1); });
      } else if (key === "unit" && value) {
        view.unitText = value;
      }
    });
    return view;
  }

  function format(view) {
    var words = [view.type || "table"];
    ["x", "y", "color", "series", "unit"].forEach(function (key) {
      if (view[key]) { words.push(key + "=?" + view[key]); }
    });
    if (view.unitText && !view.unit) { words.push("unit=" + view.unitText); }
    if (view.group && view.group.length) {
      words.push("group=" + view.group.map(function (v) { return "?" + v; }).join(","));
    }
    if (view.log) { words.push("log"); }
    return words.join(" ");
  }

  window.benchgraph = window.benchgraph || {};
  window.benchgraph.view = { parse: parse, format: format, TYPES: TYPES };
})();
