// The editor completes the ontology's classes (after `a`) and properties (where a predicate
// goes) from this server's /ontology/terms.json, each shown with its label: YASQE's own
// class and property completers ask an outside service (LOV), which this page never calls.
(function () {
  "use strict";
  var bg = window.benchgraph = window.benchgraph || {};
  var config = JSON.parse(document.getElementById("bg-config").textContent);
  var Yasqe = Yasgui.Yasqe;
  var loaded = null;
  var labels = {};

  function terms() {
    if (!loaded) {
      loaded = fetch(config.terms, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : { classes: [], properties: [] }; })
        .then(function (t) {
          t.classes.concat(t.properties).forEach(function (term) {
            labels[term.iri] = term.label;
            labels[term.name] = term.label;
          });
          return t;
        })
        .catch(function () { loaded = null; return { classes: [], properties: [] }; });
    }
    return loaded;
  }

  // The predeclared prefixes and the query's own PREFIX lines (those win).
  function prefixes(yasqe) {
    var out = {};
    Object.keys(config.prefixMap || {}).forEach(function (p) { out[p] = config.prefixMap[p]; });
    var own = yasqe.getPrefixesFromQuery();
    Object.keys(own).forEach(function (p) { out[p] = own[p]; });
    return out;
  }

  function preProcess(yasqe, token) {
    var text = token.string.trim();
    token.autocompletionString = text;
    token.tokenPrefix = null;
    if (text.charAt(0) === "<") {
      token.autocompletionString = text.slice(1).replace(/>$/, "");
      return token;
    }
    var colon = text.indexOf(":");
    if (colon >= 0) {
      var ns = prefixes(yasqe)[text.slice(0, colon)];
      if (ns) {
        token.tokenPrefix = text.slice(0, colon + 1);
        token.tokenPrefixUri = ns;
        token.autocompletionString = ns + text.slice(colon + 1);
      }
    }
    return token;
  }

  function localName(iri) { return iri.replace(/^.*[#/]/, ""); }

  // Terms whose IRI starts with what is typed, else whose name or label holds it.
  function matching(list, token) {
    var typed = (token && token.autocompletionString) || "";
    var lower = typed.toLowerCase();
    var bare = lower.replace(/^.*[#/:]/, "");
    return list.filter(function (term) {
      if (term.iri.toLowerCase().indexOf(lower) === 0) { return true; }
      if (token.tokenPrefix && term.iri.indexOf(token.tokenPrefixUri) !== 0) { return false; }
      return bare.length > 0 && (localName(term.iri).toLowerCase().indexOf(bare) >= 0 ||
        (term.label || "").toLowerCase().indexOf(bare) >= 0);
    }).map(function (term) { return term.iri; });
  }

  function postProcess(yasqe, token, iri) {
    if (token.tokenPrefix && iri.indexOf(token.tokenPrefixUri) === 0) {
      return token.tokenPrefix + iri.slice(token.tokenPrefixUri.length);
    }
    var all = prefixes(yasqe);
    var best = null;
    Object.keys(all).forEach(function (p) {
      if (p !== "bgid" && iri.indexOf(all[p]) === 0 &&
          /^[A-Za-z0-9_-]*$/.test(iri.slice(all[p].length)) &&
          (best === null || all[p].length > all[best].length)) { best = p; }
    });
    return best === null ? "<" + iri + ">" : best + ":" + iri.slice(all[best].length);
  }

  function withLabels(yasqe, hints) {
    return hints.map(function (hint) {
      var label = labels[hint.text];
      if (label) { hint.displayText = hint.text + "  \u2014 " + label; }
      hint.className = "bg-hint";
      return hint;
    });
  }

  function completer(base, name, kind) {
    Yasqe.forkAutocompleter(base, {
      name: name,
      bulk: false,
      autoShow: true,
      get: function (yasqe, token) {
        return terms().then(function (t) { return matching(t[kind], token); });
      },
      preProcessToken: preProcess,
      postProcessSuggestion: postProcess,
      postprocessHints: withLabels
    }, false);
  }

  completer("class", "bgclass", "classes");
  completer("property", "bgproperty", "properties");
  bg.complete = { terms: terms, matching: matching };
})();
