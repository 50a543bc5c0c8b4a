// The ontology page's filter: the terms (and the contents' entries) whose text holds every
// word typed stay shown; the rest are hidden, and the count says how many are left.
(function () {
  "use strict";
  var input = document.getElementById("term-filter");
  if (!input) { return; }
  var terms = Array.prototype.slice.call(document.querySelectorAll("div.term"));
  var texts = terms.map(function (t) { return t.textContent.toLowerCase(); });
  var count = document.getElementById("term-count");
  var tocLinks = Array.prototype.slice.call(document.querySelectorAll("#toc a"));

  function apply() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = {};
    var n = 0;
    terms.forEach(function (term, i) {
      var keep = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
      term.hidden = !keep;
      if (keep) { shown[term.id] = true; n += 1; }
    });
    document.querySelectorAll("section.terms").forEach(function (section) {
      section.hidden = !section.querySelector("div.term:not([hidden])");
    });
    tocLinks.forEach(function (a) {
      var li = a.parentNode;
      var keep = !words.length || shown[a.getAttribute("href").slice(1)] ||
        !!li.querySelector("li:not([hidden])");
      li.hidden = !keep;
    });
    count.textContent = words.length ? n + " of " + terms.length + " terms" : "";
  }
  input.addEventListener("input", apply);
  if (window.location.hash === "" && input.value) { apply(); }
})();
