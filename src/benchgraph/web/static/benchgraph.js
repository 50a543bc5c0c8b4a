// The query page: YASGUI against this server's endpoint, the saved queries as examples,
// and download links for the current query in every format its form allows.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("bg-config").textContent);
  var examples = {};
  config.examples.forEach(function (e) { examples[e.name] = e; });

  var yasgui = new Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: config.endpoint, method: "POST" },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: config.endpoint }]; } },
    persistenceId: config.storageKey,
    yasqe: {
      value: config.defaultQuery,
      // No suggestions fetched from other sites: prefixes come from this server.
      prefixCcApi: new URL(config.prefixes, window.location.href).toString(),
      autocompleters: ["prefixes", "variables"]
    },
    yasr: { prefixes: config.prefixMap }
  });
  // A tab restored from an earlier visit may point elsewhere; this page queries this server.
  var tab = yasgui.getTab();
  if (tab.getEndpoint() !== config.endpoint) { tab.setEndpoint(config.endpoint); }

  function queryType(text) {
    var found = /\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b/i.exec(
      text.replace(/#[^\n]*/g, "").replace(/<[^>]*>/g, ""));
    return found ? found[1].toUpperCase() : "SELECT";
  }

  function showDownloads() {
    var current = yasgui.getTab();
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
    document.getElementById("downloads").hidden = false;
  }

  yasgui.on("queryResponse", showDownloads);

  document.querySelectorAll("button.example").forEach(function (button) {
    button.addEventListener("click", function () {
      var current = yasgui.getTab();
      current.setQuery(examples[button.dataset.example].query);
      current.query();
    });
  });
})();
