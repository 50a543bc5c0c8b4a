// The result table as benchgraph shows it: YASR's table, with numbers, dates and booleans as
// their values ("4", not "4"^^xsd:integer; the datatype is in the cell's tooltip) and
// benchgraph's own IRIs linking to this server's Linked Data pages. And errors as readable,
// wrapped text.
//
// A result is outside text: no value of it is ever parsed as HTML, and only an http(s) IRI
// becomes a link (a javascript: IRI was a link, blocked only by the CSP). Each cell's HTML is
// built here from escaped text; YASR's own table (vendored, not edited) runs a value through
// DOMPurify to sort and search by it, which parses it as HTML (an <img onerror> in a literal
// drew a script-src-attr report), so the columns' render functions are the page's own too.
(function () {
  "use strict";
  var XSD = "http://www.w3.org/2001/XMLSchema#";
  var PLAIN = ["boolean", "date", "dateTime", "dateTimeStamp", "gYear", "gYearMonth"];

  // Where an IRI leads: this server's page for benchgraph's IRIs (as web/ld.py links them on
  // record pages), else the IRI itself.
  function localHref(iri, links) {
    if (!links) { return iri; }
    if (links.records.some(function (ns) { return iri.indexOf(ns) === 0; })) {
      return links.recordRoot + iri.slice(links.base.length);
    }
    if (iri === links.ontology) { return links.ontologyPage; }
    if (links.terms.some(function (ns) { return iri.indexOf(ns) === 0; })) {
      var anchor = iri.indexOf("#") >= 0 ? iri.slice(iri.lastIndexOf("#") + 1)
        : iri.replace(/\/+$/, "").slice(iri.replace(/\/+$/, "").lastIndexOf("/") + 1);
      return links.ontologyPage + "#" + anchor;
    }
    return iri;
  }

  // namespaces.PLAIN_LOCAL: a local name SPARQL reads without escapes
  var PLAIN_LOCAL = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?)?$/;

  function longestPrefix(iri, prefixes) {
    var best = null;
    Object.keys(prefixes || {}).forEach(function (p) {
      if (p !== "bgid" && iri.indexOf(prefixes[p]) === 0 &&
          (best === null || prefixes[p].length > prefixes[best].length)) { best = p; }
    });
    return best;
  }

  // Text as HTML that parses back to the same text, and nothing else.
  function escapeText(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  // Whether a link to `href` leads to a web page: http(s) only, as the browser reads the URL
  // (so " JavaScript:", "java\tscript:" are what they are).
  function isWebLink(href) {
    try {
      var protocol = new URL(href, window.location.href).protocol;
      return protocol === "http:" || protocol === "https:";
    } catch (e) {
      return false;
    }
  }

  function html(tag, attributes, text) {
    var e = document.createElement(tag);
    Object.keys(attributes).forEach(function (k) { e.setAttribute(k, attributes[k]); });
    e.textContent = text;
    return e.outerHTML;
  }

  function tableClass(Base, links) {
    return class Table extends Base {
      getUriLinkFromBinding(binding, prefixes) {
        var iri = binding.value;
        var shown = iri;
        var paste = "<" + iri + ">";
        // the longest namespace (acc:x, not bgid:accelerators/x); copied as a query takes it
        // back (bg-copy.js): the prefixed name where its local name needs no escape
        var ns = longestPrefix(iri, prefixes);
        if (ns) {
          shown = ns + ":" + iri.slice(prefixes[ns].length);
          if (PLAIN_LOCAL.test(iri.slice(prefixes[ns].length))) { paste = shown; }
        }
        var bare = shown !== iri || this.persistentConfig.compact;
        var href = localHref(iri, links);
        var link;
        if (isWebLink(href)) {
          var attributes = { "class": "iri", href: href, "data-paste": paste };
          if (href === iri) {
            attributes.target = "_blank";
            attributes.rel = "noopener noreferrer";
          } else {
            attributes.title = iri;
          }
          link = html("a", attributes, shown);
        } else {
          link = html("span", { "class": "iri", "data-paste": paste }, shown); // not followed
        }
        return bare ? link : "&lt;" + link + "&gt;";
      }

      // As YASR's (its value, "quoted" with @lang or ^^datatype unless the view is simple),
      // with the language tag escaped too.
      formatLiteral(binding, prefixes) {
        var dt = binding.datatype || "";
        if (window.benchgraph.chartdata.isNumber(binding) ||
            PLAIN.indexOf(dt.slice(XSD.length)) >= 0 && dt.indexOf(XSD) === 0) {
          var isNumber = window.benchgraph.chartdata.isNumber(binding);
          var cls = isNumber ? "number" : "typed";
          var title = "xsd:" + dt.slice(XSD.length);
          var shown = binding.value;
          // a figure for people: 4 significant digits (as web/figures.py), the whole value
          // on hover and in every download; a whole number (a count) as it is
          if (isNumber && !/^[+-]?\d+$/.test(shown) && isFinite(Number(shown))) {
            shown = Number(shown).toLocaleString("en", { maximumSignificantDigits: 4 });
            if (shown !== binding.value) { title += " " + binding.value; }
          }
          return html("span", { "class": cls, title: title }, shown);
        }
        var text = escapeText(binding.value);
        if (this.persistentConfig.compact) { return text; }
        if (binding["xml:lang"]) {
          return "\"" + text + "\"<sup>@" + escapeText(binding["xml:lang"]) + "</sup>";
        }
        if (dt) {
          return "\"" + text + "\"<sup>^^" +
            this.getUriLinkFromBinding({ type: "uri", value: dt }, prefixes) + "</sup>";
        }
        return text;
      }

      // YASR's columns, each cell rendered here: shown as the HTML built above; searched by
      // its text escaped (DataTables reads a search text holding "&" as HTML, for its
      // entities); sorted by its text (DataTables strips tags from it by a pattern, no parse).
      getColumns() {
        var self = this;
        var prefixes = this.yasr.getPrefixes();
        return super.getColumns().map(function (column, i) {
          if (i === 0) { return column; } // the row number
          return Object.assign({}, column, {
            render: function (binding, type) {
              if (binding === "") { return binding; } // unbound
              if (type === "filter") { return escapeText(binding.value); }
              if (type === "sort" || !type) { return binding.value; }
              return self.getCellContent(binding, prefixes);
            }
          });
        });
      }
    };
  }

  // An error answer of this server is JSON ({"status", "title", "error", ...}): shown as its
  // title and message, wrapped, rather than as raw JSON on one long line.
  function renderError(error) {
    var body = null;
    try { body = JSON.parse(error.text); } catch (e) { body = null; }
    var box = document.createElement("div");
    box.className = "bg-error";
    var title = document.createElement("p");
    title.className = "bg-error-title";
    title.textContent = body && body.title
      ? body.title + (body.status ? " (" + body.status + ")" : "")
      : "Error" + (error.status ? " (" + error.status + ")" : "");
    box.appendChild(title);
    var message = document.createElement("pre");
    message.className = "bg-error-message";
    message.textContent = body && body.error ? body.error : error.text || String(error);
    box.appendChild(message);
    return box;
  }

  window.benchgraph = window.benchgraph || {};
  window.benchgraph.table = { tableClass: tableClass, localHref: localHref,
    isWebLink: isWebLink, escapeText: escapeText, renderError: renderError };
})();
