// Copying from a result table or a record page gives IRIs as a query takes them back: each
// link with a `data-paste` (acc:nvidia-h100-sxm, or <https://...#measurement-1>) is copied as
// that text rather than as what it shows; cells are joined by tabs and rows by line breaks,
// as a browser copies a table.
(function () {
  "use strict";

  function cellText(node) {
    var out = "";
    node.childNodes.forEach(function (child) {
      if (child.nodeType === 3) { out += child.nodeValue; return; }
      if (child.nodeType !== 1) { return; }
      if (child.hasAttribute("data-paste")) { out += child.getAttribute("data-paste"); return; }
      out += cellText(child);
    });
    return out;
  }

  function fragmentText(fragment) {
    var rows = fragment.querySelectorAll("tr");
    if (!rows.length) { return cellText(fragment); }
    return Array.prototype.map.call(rows, function (row) {
      return Array.prototype.map.call(row.querySelectorAll("th, td"), function (cell) {
        return cellText(cell).trim();
      }).join("\t");
    }).join("\n");
  }

  document.addEventListener("copy", function (event) {
    var selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) { return; }
    var holder = document.createElement("div");
    for (var i = 0; i < selection.rangeCount; i++) {
      holder.appendChild(selection.getRangeAt(i).cloneContents());
    }
    if (!holder.querySelector("[data-paste]")) { return; } // nothing to change: the browser's copy
    event.clipboardData.setData("text/plain", fragmentText(holder));
    event.preventDefault();
  });

  window.benchgraph = window.benchgraph || {};
  window.benchgraph.copy = { fragmentText: fragmentText };
})();
