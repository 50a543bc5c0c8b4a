// The results explorer (/explore): the view form applies itself on each change (every state
// is the page's URL, made by the server), and the chart of one comparable group is drawn
// from the data the page holds (#chart-data), coloured by fabric status, its figures to 4
// significant digits with their unit.
(function () {
  "use strict";
  var bg = window.benchgraph = window.benchgraph || {};
  var PALETTE = ["#1f6feb", "#d9480f", "#2f9e44", "#9c36b5", "#e8590c", "#0c8599", "#5c940d"];

  // 4 significant digits, as the server's figures.py shows them
  function figure(n, unit) {
    var text = Number(n).toLocaleString("en", { maximumSignificantDigits: 4 });
    return unit ? text + " " + unit : text;
  }
  bg.figure = figure;

  var form = document.getElementById("view");
  if (form) {
    form.addEventListener("change", function () { form.submit(); });
  }

  var data = document.getElementById("chart-data");
  var canvas = document.getElementById("chart-canvas");
  if (!data || !canvas || !window.Chart) { return; }
  var chart = JSON.parse(data.textContent);
  var series = [];
  chart.points.forEach(function (p) {
    if (series.indexOf(p.series) < 0) { series.push(p.series); }
  });
  var scatter = chart.type === "scatter";
  var datasets = series.map(function (name, i) {
    return {
      label: name,
      backgroundColor: PALETTE[i % PALETTE.length],
      borderColor: PALETTE[i % PALETTE.length],
      // bars: one slot per point, this series' value in its own slots only
      data: chart.points.map(function (p, j) {
        if (p.series !== name) { return null; }
        return scatter ? { x: p.x, y: p.y, i: j } : p.y;
      }).filter(function (v) { return !scatter || v !== null; }),
      skipNull: true
    };
  });
  function pointOf(item) {
    return scatter ? chart.points[item.raw.i] : chart.points[item.dataIndex];
  }
  var drawn = new window.Chart(canvas, {
    type: scatter ? "scatter" : "bar",
    data: { labels: scatter ? undefined : chart.points.map(function (p) { return p.label; }),
      datasets: datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      plugins: {
        legend: { display: true, position: "top", title: { display: true, text: "fabric status" } },
        tooltip: { callbacks: {
          title: function (items) { return items.length ? pointOf(items[0]).title : ""; },
          label: function (item) { return pointOf(item).shown; }
        } }
      },
      scales: {
        x: scatter
          ? { type: "linear", title: { display: true, text: "accelerator count" } }
          : { stacked: true, ticks: { autoSkip: true, callback: function (v) {
            var label = this.getLabelForValue(v);
            // cut at 30 characters, an accuracy target at the end kept: "... GB (99.9)"
            var target = (/ \([^()]{1,10}\)$/.exec(label) || [""])[0];
            var base = label.slice(0, label.length - target.length);
            return label.length > 30 ? base.slice(0, 29 - target.length) + "\u2026" + target
              : label;
          } } },
        y: { stacked: !scatter, title: { display: true, text: chart.y + " (" + chart.unit + ")" },
          ticks: { callback: function (v) { return figure(v); } } }
      },
      onClick: function (_event, elements) {
        if (elements.length) {
          var e = elements[0];
          var p = scatter ? chart.points[drawn.data.datasets[e.datasetIndex].data[e.index].i]
            : chart.points[e.index];
          if (p && p.href) { window.location.href = p.href; }
        }
      }
    }
  });
  bg.exploreChart = drawn; // for the browser tests, and for a console
})();
