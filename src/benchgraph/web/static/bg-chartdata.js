// From a SPARQL SELECT result to what a chart draws: each column's kind (number, date or
// label), the view completed from the result's columns, and the rows as series, one per value
// of the colour column; of rows that mix comparable groups (a saved query's `# group:`
// columns), one group at a time. No drawing here (bg-chart.js draws).
(function () {
  "use strict";
  var XSD = "http://www.w3.org/2001/XMLSchema#";
  var NUMERIC = ["integer", "decimal", "double", "float", "int", "long", "short", "byte",
    "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
    "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"].map(function (t) {
    return XSD + t;
  });
  var DATES = ["date", "dateTime", "dateTimeStamp", "gYear", "gYearMonth"].map(function (t) {
    return XSD + t;
  });
  // Results of tens of thousands of rows are charted in part: the browser stays responsive
  // and bars stay more than a pixel wide. The table and the downloads keep every row.
  var CAP = 5000;
  var MAX_GROUPS = 10; // colours beyond these are one grey "other" series
  var SPLIT = /^(accuracyTarget|accuracy_target|target)$/i; // a column rows must not mix

  function isNumber(term) {
    return !!term && term.type !== "uri" && NUMERIC.indexOf(term.datatype) >= 0;
  }
  function isDate(term) {
    return !!term && term.type !== "uri" && DATES.indexOf(term.datatype) >= 0;
  }

  // "number" when every bound value is a number, "date" when every one is a date, else
  // "label"; "empty" when no row binds it.
  function kinds(variables, bindings) {
    var out = {};
    variables.forEach(function (v) {
      var bound = 0, numbers = 0, dates = 0;
      bindings.forEach(function (row) {
        var t = row[v];
        if (!t) { return; }
        bound += 1;
        if (isNumber(t)) { numbers += 1; } else if (isDate(t)) { dates += 1; }
      });
      out[v] = bound === 0 ? "empty" : numbers === bound ? "number"
        : dates === bound ? "date" : "label";
    });
    return out;
  }

  function distinct(v, bindings, prefixes) {
    var seen = {};
    bindings.forEach(function (row) { if (row[v]) { seen[label(row[v], prefixes)] = 1; } });
    return Object.keys(seen).length;
  }

  function chartable(variables, bindings) {
    var k = kinds(variables, bindings);
    return variables.some(function (v) { return k[v] === "number"; });
  }

  // The view the chart draws: what was asked for where the result has it, the rest picked
  // from the columns (y: a number; x: a date, else a label, else another number; colour: a
  // label with 2-10 values), and the type from x (date: line, number: scatter, label: bar).
  function complete(asked, variables, bindings, prefixes) {
    var k = kinds(variables, bindings);
    var has = function (v) { return v && variables.indexOf(v) >= 0 && k[v] !== "empty"; };
    var of = function (kind, not) {
      return variables.filter(function (v) { return k[v] === kind && not.indexOf(v) < 0; })[0];
    };
    var view = { log: !!asked.log };
    view.y = has(asked.y) && k[asked.y] === "number" ? asked.y : of("number", [asked.x]);
    view.x = has(asked.x) && asked.x !== view.y ? asked.x
      : of("date", [view.y]) || of("label", [view.y]) || of("number", [view.y]) || null;
    var unitColumn = has(asked.unit) ? asked.unit : variables.filter(function (v) {
      return /^(unit|.*Unit|.*_unit)$/i.test(v) && k[v] === "label";
    })[0];
    if (unitColumn) { view.unit = unitColumn; }
    if (asked.unitText && !unitColumn) { view.unitText = asked.unitText; }
    if (asked.color === "" || asked.color === null) {
      view.color = null;
    } else if (has(asked.color) && asked.color !== view.y) {
      view.color = asked.color;
    } else {
      view.color = variables.filter(function (v) {
        var n = distinct(v, bindings, prefixes);
        return v !== view.x && v !== view.y && v !== unitColumn && k[v] === "label"
          && n >= 2 && n <= MAX_GROUPS;
      })[0] || null;
    }
    // series: one line per value of this column (each coloured by its rows' colour)
    view.series = has(asked.series) && [view.x, view.y].indexOf(asked.series) < 0
      ? asked.series : null;
    // the columns whose values make one comparable group (those the chart does not draw)
    var drawn = [view.x, view.y, view.color, view.series];
    view.group = (asked.group || []).filter(function (v) {
      return has(v) && drawn.indexOf(v) < 0;
    });
    if (asked.groupValue) { view.groupValue = asked.groupValue; }
    // Rows held to different accuracy targets (MLPerf's 99 and 99.9) are not alike: the
    // labels say which, unless the x axis, the colours or the groups already do.
    var split = variables.filter(function (v) {
      return SPLIT.test(v) && drawn.concat(view.group).indexOf(v) < 0 &&
        distinct(v, bindings, prefixes) >= 2;
    })[0];
    if (split) { view.split = split; }
    if (asked.unitValue) { view.unitValue = asked.unitValue; }
    var xKind = view.x ? k[view.x] : "number";
    view.type = ["bar", "line", "scatter"].indexOf(asked.type) >= 0 ? asked.type
      : xKind === "date" ? "line" : xKind === "number" ? "scatter" : "bar";
    view.xKind = xKind;
    return view;
  }

  // A term as the page shows it: prefixed IRIs, literal values.
  function label(term, prefixes) {
    if (!term) { return ""; }
    if (term.type === "uri") {
      var best = "";
      Object.keys(prefixes || {}).forEach(function (p) {
        var ns = prefixes[p];
        if (term.value.indexOf(ns) === 0 && ns.length > (best ? prefixes[best].length : 0)) {
          best = p;
        }
      });
      return best ? best + ":" + term.value.slice(prefixes[best].length) : term.value;
    }
    return term.value;
  }

  function dateValue(term) {
    var text = term.value;
    if (/^-?\d{4}$/.test(text)) { text += "-01-01"; }
    if (/^-?\d{4}-\d{2}$/.test(text)) { text += "-01"; }
    return Date.parse(text);
  }

  // The rows as series: {groups: [{name, points: [{x, y, row}]}], rows: [...], notes: [...]}.
  // x is a number (date: ms since 1970) or, for a label column, the label.
  function series(view, variables, bindings, prefixes) {
    var notes = [];
    var total = bindings.length;
    var rows = bindings.slice(0, CAP);
    if (total > CAP) {
      notes.push("Charting the first " + CAP.toLocaleString("en") + " of " +
        total.toLocaleString("en") + " rows: narrow the query (FILTER, LIMIT or GROUP BY) to " +
        "chart them all. The table and the downloads have every row.");
    }
    var missing = 0, nonPositive = 0;
    var kept = [];
    rows.forEach(function (row) {
      var y = row[view.y] ? Number(row[view.y].value) : NaN;
      if (!isFinite(y)) { missing += 1; return; }
      if (view.log && y <= 0) { nonPositive += 1; return; }
      var x;
      if (!view.x) { x = kept.length + 1; } else if (view.xKind === "number") {
        x = row[view.x] ? Number(row[view.x].value) : NaN;
      } else if (view.xKind === "date") {
        x = row[view.x] ? dateValue(row[view.x]) : NaN;
      } else {
        x = label(row[view.x], prefixes);
        if (view.split && row[view.split]) { x += " (" + label(row[view.split], prefixes) + ")"; }
      }
      if (typeof x === "number" && !isFinite(x)) { missing += 1; return; }
      kept.push({ x: x, y: y, row: row });
    });
    // Rows of several comparable groups: one at a time (the one asked for, else the first in
    // the result's order), never drawn together.
    var groupsAll = comparable(view, kept, prefixes);
    var groupShown = null;
    if (groupsAll.length) {
      var groupNames = groupsAll.map(function (g) { return g.name; });
      groupShown = groupNames.indexOf(view.groupValue) >= 0 ? view.groupValue : groupNames[0];
      kept = kept.filter(function (p) { return groupOf(view, p.row, prefixes) === groupShown; });
    }
    // Several units: one at a time (the one asked for, else the most common), never mixed on
    // one axis.
    var allUnits = units(view, kept, prefixes);
    var unitShown = null;
    if (view.unit && allUnits.length > 1) {
      var counts = {};
      kept.forEach(function (p) {
        var u = p.row[view.unit] ? label(p.row[view.unit], prefixes) : "";
        counts[u] = (counts[u] || 0) + 1;
      });
      unitShown = allUnits.indexOf(view.unitValue) >= 0 ? view.unitValue
        : allUnits.slice().sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : 1); })[0];
      kept = kept.filter(function (p) {
        return p.row[view.unit] && label(p.row[view.unit], prefixes) === unitShown;
      });
    }
    if (missing) {
      notes.push(missing + " row" + (missing === 1 ? "" : "s") + " without a ?" + view.y +
        (view.x ? " or ?" + view.x : "") + " value " + (missing === 1 ? "is" : "are") +
        " not charted.");
    }
    if (nonPositive) {
      notes.push(nonPositive + " row" + (nonPositive === 1 ? "" : "s") + " at or below 0 " +
        (nonPositive === 1 ? "is" : "are") + " left out of the log scale.");
    }
    var names = [];
    var byName = {};
    kept.forEach(function (p) {
      var name = view.color ? label(p.row[view.color], prefixes) || "(none)" : view.y;
      if (!(name in byName)) { byName[name] = []; names.push(name); }
      byName[name].push(p);
    });
    // The same value gets the same colour in every chart: groups in sorted order.
    names.sort();
    var groups = names.slice(0, MAX_GROUPS).map(function (n) {
      return { name: n, points: byName[n] };
    });
    if (names.length > MAX_GROUPS) {
      var rest = [];
      names.slice(MAX_GROUPS).forEach(function (n) { rest = rest.concat(byName[n]); });
      groups.push({ name: "other (" + (names.length - MAX_GROUPS) + " values)", points: rest,
        other: true });
    }
    var splitValues = [];
    if (view.split) {
      bindings.forEach(function (row) {
        var v = row[view.split] ? label(row[view.split], prefixes) : "";
        if (v && splitValues.indexOf(v) < 0) { splitValues.push(v); }
      });
      splitValues.sort();
    }
    return { groups: groups, points: kept, notes: notes, units: units(view, kept, prefixes),
      allUnits: allUnits, split: view.split ? { column: view.split, values: splitValues } : null,
      lines: lines(view, groups, prefixes), comparable: groupsAll, groupShown: groupShown };
  }

  // A row's comparable group: its values of the group columns, as the page shows them.
  function groupOf(view, row, prefixes) {
    return view.group.map(function (v) { return label(row[v], prefixes); })
      .filter(function (t) { return t !== ""; }).join(" \u00b7 ") || "(none)";
  }

  // The comparable groups of the rows charted, in the result's order, with their sizes
  // ([] without group columns).
  function comparable(view, points, prefixes) {
    if (!view.group || !view.group.length) { return []; }
    var out = [], at = {};
    points.forEach(function (p) {
      var name = groupOf(view, p.row, prefixes);
      if (!(name in at)) { at[name] = out.length; out.push({ name: name, rows: 0 }); }
      out[at[name]].rows += 1;
    });
    return out;
  }

  // With a series column: one line per value of it, in the colour of its first row's group
  // (a line whose rows have several colours is drawn in each, one line per colour).
  function lines(view, groups, prefixes) {
    if (!view.series) { return []; }
    var out = [];
    groups.forEach(function (g, gi) {
      var byName = {};
      var names = [];
      g.points.forEach(function (p) {
        var name = label(p.row[view.series], prefixes) || "(none)";
        if (!(name in byName)) { byName[name] = []; names.push(name); }
        byName[name].push(p);
      });
      names.sort().forEach(function (name) {
        out.push({ name: name, group: gi, points: byName[name] });
      });
    });
    return out;
  }

  // The y axis's unit, as the data states it: one unit column's values, or the unit the saved
  // query's view names for a pattern that fixes it. Several units are said, not hidden.
  function units(view, points, prefixes) {
    if (view.unit) {
      var seen = {};
      points.forEach(function (p) { if (p.row[view.unit]) { seen[label(p.row[view.unit], prefixes)] = 1; } });
      return Object.keys(seen).sort();
    }
    return view.unitText ? [view.unitText] : [];
  }

  // A text a spreadsheet would run as a formula gets a leading ' (OWASP's advice; the same
  // rule as query/render.py's spreadsheet_safe): numbers such as -5 stay as they are.
  function csvField(text) {
    text = String(text);
    if (/^[=+\-@\t\r]/.test(text) && !isFinite(Number(text))) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  // The charted rows, the charted columns only, as CSV (RFC 4180, CRLF).
  function csv(view, points) {
    var columns = [view.x, view.y, view.color, view.series, view.unit].filter(function (c, i, all) {
      return c && all.indexOf(c) === i;
    });
    var lines = [columns.map(csvField).join(",")];
    points.forEach(function (p) {
      lines.push(columns.map(function (c) {
        return csvField(p.row[c] ? p.row[c].value : "");
      }).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  window.benchgraph = window.benchgraph || {};
  window.benchgraph.chartdata = {
    kinds: kinds, chartable: chartable, complete: complete, series: series, label: label,
    csv: csv, CAP: CAP, MAX_GROUPS: MAX_GROUPS, isNumber: isNumber, isDate: isDate
  };
})();
