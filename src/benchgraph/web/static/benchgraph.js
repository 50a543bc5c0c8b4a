// The query page: YASGUI against this server's endpoint, the saved queries as examples (each
// opening in its own view: a table or a chart), download links for the current query in every
// format its form allows, and a link that holds the query and its view (/#query=...&view=...).
(function () {
  "use strict";
  var bg = window.benchgraph;
  var config = JSON.parse(document.getElementById("bg-config").textContent);
  var examples = {};
  config.examples.forEach(function (e) { examples[e.name] = e; });

  Yasgui.Yasr.registerPlugin("table", bg.table.tableClass(Yasgui.Yasr.plugins.table,
    config.links));
  Yasgui.Yasr.registerPlugin("chart", bg.ChartPlugin);
  // Each tab makes its YASR from these defaults (not from the options below).
  Yasgui.Yasr.defaults.pluginOrder = ["table", "chart", "response"];
  Yasgui.Yasr.defaults.errorRenderers = [function (error) {
    return Promise.resolve(bg.table.renderError(error));
  }];

  var yasgui = new Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: config.endpoint, method: "POST" },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: config.endpoint }]; } },
    persistenceId: config.storageKey,
    // The page's own links (#query=...&view=...) are read below; YASGUI's reading of the same
    // parameters would open them without their view.
    populateFromUrl: false,
    // Focusing the editor on load would scroll a narrow window past the page's first lines.
    autofocus: false,
    // The editor's own share button builds its link from this page's address, which holds the
    // query and the view (shareLink below), so its links open in the view too.
    yasqe: {
      value: config.defaultQuery,
      // No suggestions fetched from other sites: prefixes, classes and properties come from
      // this server (bg-complete.js).
      prefixCcApi: new URL(config.prefixes, window.location.href).toString(),
      autocompleters: ["prefixes", "variables", "bgclass", "bgproperty"]
    },
    yasr: { prefixes: config.prefixMap }
  });
  bg.yasgui = yasgui; // for the browser tests, and for a console
  // A tab restored from an earlier visit may point elsewhere; this page queries this server.
  var tab = yasgui.getTab();
  if (tab.getEndpoint() !== config.endpoint) { tab.setEndpoint(config.endpoint); }

  function queryType(text) {
    var found = /\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b/i.exec(
      text.replace(/#[^\n]*/g, "").replace(/<[^>]*>/g, ""));
    return found ? found[1].toUpperCase() : "SELECT";
  }

  // The view now shown: the chart's, when the chart is what the result shows.
  function currentView() {
    var yasr = yasgui.getTab().getYasr();
    if (yasr && yasr.drawnPlugin === "chart") { return yasr.plugins.chart.view(); }
    return { type: "table" };
  }

  // This page, opened on the current query and view.
  function shareUrl() {
    var params = new URLSearchParams();
    params.set("query", yasgui.getTab().getQuery());
    params.set("view", bg.view.format(currentView()));
    var url = new URL(window.location.href);
    url.hash = params.toString();
    return url.toString();
  }

  // The link under the result, and the address bar, follow each run and each change of view.
  function shareLink() {
    var url = shareUrl();
    document.getElementById("share-link").href = url;
    window.history.replaceState(null, "", url);
  }

  function showDownloads() {
    var current = yasgui.getTab();
    var yasr = current.getYasr();
    var downloads = document.getElementById("downloads");
    // An error is not a result: nothing to download.
    if (!yasr || !yasr.results || yasr.results.getError()) {
      downloads.hidden = true;
      return;
    }
    var text = current.getQuery();
    var holder = document.getElementById("download-links");
    holder.textContent = "";
    (config.formats[queryType(text)] || []).forEach(function (format) {
      var url = new URL(config.endpoint);
      url.searchParams.set("query", text);
      url.searchParams.set("format", format[0]);
      url.searchParams.set("download", "1");
      var link = document.createElement("a");
      link.href = url.toString();
      link.textContent = format[1];
      link.setAttribute("download", "");
      holder.appendChild(link);
    });
    downloads.hidden = false;
    shareLink();
  }

  // The editor and its result, not the list of examples, are what to look at after an example
  // is clicked: scrolled to at once, and again once the result has made the page long enough.
  var scrollPending = false;
  function showEditor() {
    document.getElementById("editor").scrollIntoView({ block: "start" });
  }

  // The result is handed to YASR after this event: look once it has it. A shared link to a
  // chart scrolls to the chart, once it is drawn.
  yasgui.on("queryResponse", function () {
    window.setTimeout(function () {
      showDownloads();
      if (scrollPending) {
        var chart = scrollPending === "chart" && document.querySelector(".yasr figure.bg-chart");
        scrollPending = false;
        if (chart) { chart.scrollIntoView({ block: "start" }); } else { showEditor(); }
      }
    }, 0);
  });
  document.addEventListener("bg-view", function () {
    if (!document.getElementById("downloads").hidden) { shareLink(); }
  });

  // Run `query` and show its result in `view` (a table unless the view names a chart).
  function open(query, view) {
    var current = yasgui.getTab();
    var yasr = current.getYasr();
    current.setQuery(query);
    if (view && view.type && view.type !== "table") {
      yasr.plugins.chart.setView(view);
      yasr.selectedPlugin = "chart";
    } else {
      yasr.selectedPlugin = "table";
    }
    // A failed query is shown by YASR; the promise's rejection says nothing more.
    current.query().catch(function () { return null; });
  }

  // The example chosen: marked in the list, and it and its form scrolled into view in the
  // list (which scrolls on its own beside the editor on a wide page).
  function choose(name) {
    var chosen = null;
    document.querySelectorAll("#examples > li").forEach(function (li) {
      var on = li.dataset.example === name;
      li.classList.toggle("chosen", on);
      if (on) { chosen = li; }
    });
    if (chosen) { chosen.scrollIntoView({ block: "nearest" }); }
  }

  document.querySelectorAll("button.example").forEach(function (button) {
    button.addEventListener("click", function () {
      var e = examples[button.dataset.example];
      scrollPending = true;
      choose(e.name);
      open(e.query, e.view);
      showEditor();
    });
  });

  // The examples list, narrowed to those holding every word typed.
  var filter = document.getElementById("example-filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      document.querySelectorAll("#examples > li").forEach(function (li) {
        var text = li.dataset.words || "";
        li.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
      });
    });
  }

  // A shared link: its query and view, run at once (also when a link is followed from this
  // page to itself, which changes only the fragment).
  function openShared() {
    var shared = new URLSearchParams(window.location.hash.slice(1));
    if (shared.get("query")) {
      var view = bg.view.parse(shared.get("view") || "table");
      if (view.type && view.type !== "table") { scrollPending = "chart"; }
      open(shared.get("query"), view);
      return true;
    }
    return false;
  }
  window.addEventListener("hashchange", openShared);
  // A saved query with its parameters given (/?example=NAME&part=...): the server built its
  // text from the typed values; it runs at once, scrolled to, unless the link says run=no.
  // Opened with neither, the page answers its headline question.
  if (config.open) {
    choose(config.open.name);
    if (config.open.run) {
      scrollPending = true;
      open(config.open.query, config.open.view);
    } else {
      yasgui.getTab().setQuery(config.open.query);
    }
    showEditor();
  } else if (!openShared() && config.headline && examples[config.headline]) {
    choose(config.headline);
    open(examples[config.headline].query, examples[config.headline].view);
  }
})();
