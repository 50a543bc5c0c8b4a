// The "Chart" view of the result (a YASR plugin beside Table and Response): a bar, line or
// scatter chart of a number column against a label, a date or another number, coloured by a
// third column, one comparable group at a time (its name over the chart, the others under
// "group"), with a log scale, a PNG and a CSV download of what is drawn. Drawn by Chart.js
// (static/vendor/chartjs; why that library: the Makefile's vendor target).
(function () {
  "use strict";
  var data = window.benchgraph.chartdata;
  // Okabe and Ito's colours, told apart with most colour-vision deficiencies, then Tableau's.
  var PALETTE = ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#8c564b",
    "#000000", "#bcbd22", "#7f7f7f"];
  var OTHER = "#b8bcc4";
  var TICK = 40; // longest x tick label before it is cut (the tooltip has it whole)

  // The chart's PNG has a white background rather than none.
  var background = {
    id: "bgBackground",
    beforeDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.globalCompositeOperation = "destination-over";
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    }
  };

  function element(tag, className, text) {
    var e = document.createElement(tag);
    if (className) { e.className = className; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  // A tick label cut to TICK characters: in the middle (its start and its end kept, the start
  // the longer: "NVIDIA RTX PRO 6000…Server Edition") or, with no room for both, at the end;
  // never to its end alone ("GB, TensorRT)" said nothing of which system). A short last
  // "(...)" (an accuracy target) is kept whole. A prefixed name or IRI loses its namespace
  // first (acc:nvidia-h100-sxm: nvidia-h100-sxm).
  function cut(text) {
    text = String(text);
    if (/^[A-Za-z][\w-]*:[^\s/]\S*$/.test(text)) {
      text = text.slice(text.indexOf(":") + 1) || text;
    } else if (/^https?:\/\/\S+$/.test(text)) {
      text = text.replace(/\/+$/, "").replace(/^.*[#/]/, "") || text;
    }
    if (text.length <= TICK) { return text; }
    var suffix = (/ \([^()]{1,10}\)$/.exec(text) || [""])[0];
    var base = text.slice(0, text.length - suffix.length);
    var room = TICK - suffix.length - 1;
    var head = Math.ceil(room * 0.6);
    var start = base.slice(0, head);
    var space = start.lastIndexOf(" ");
    if (space > 0 && space >= head - 3) { start = start.slice(0, space); }  // at a word's end
    var end = base.slice(base.length - (room - start.length));
    var gap = end.indexOf(" ");
    if (gap >= 0 && gap < 3) { end = end.slice(gap + 1); }  // from a word's start
    return (end.length >= 4 ? start + "\u2026" + end : base.slice(0, room) + "\u2026") + suffix;
  }

  function formatX(view, x) {
    if (view.xKind === "date" && typeof x === "number") {
      return new Date(x).toISOString().slice(0, 10);
    }
    return typeof x === "number" ? x.toLocaleString("en", { maximumSignificantDigits: 4 }) : x;
  }

  // Values as numbers are read: 1,500 and 0.25; on a log scale only 1, 2 and 5 of each decade.
  function yTick(view, v) {
    if (view.log) {
      var mantissa = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
      if ([1, 2, 5].indexOf(Math.round(mantissa * 1000) / 1000) < 0) { return ""; }
    }
    return Number(v).toLocaleString("en", { maximumSignificantDigits: 4 });
  }

  function yTitle(view, units) {
    var title = "?" + view.y;
    if (units.length === 1) { title += " (" + units[0] + ")"; }
    if (units.length > 1) { title += " (mixed units: " + units.join(", ") + ")"; }
    return title;
  }

  // The Chart.js configuration of a completed view and its series.
  function configure(view, s) {
    var colourOf = function (g, i) { return g.other ? OTHER : PALETTE[i % PALETTE.length]; };
    var unit = s.units.length === 1 ? " " + s.units[0] : "";
    var config = {
      type: view.type === "bar" ? "bar" : "line",
      data: { datasets: [] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: "nearest", intersect: view.type !== "bar" },
        plugins: {
          title: { display: !!s.groupShown, text: s.groupShown || "", font: { size: 13 } },
          legend: { display: !!view.color, position: "top",
            title: { display: !!view.color, text: view.color ? "?" + view.color : "" } },
          tooltip: { callbacks: {
            title: function (items) {
              if (!items.length) { return ""; }
              var raw = items[0].raw;
              return view.type === "bar" ? items[0].label
                : formatX(view, raw && typeof raw === "object" ? raw.x : items[0].label);
            },
            label: function (item) {
              var y = typeof item.raw === "object" && item.raw ? item.raw.y : item.raw;
              return item.dataset.label + ": " + Number(y).toLocaleString("en", { maximumSignificantDigits: 4 }) + unit;
            }
          } }
        },
        scales: {
          x: { title: { display: true, text: view.x ? "?" + view.x : "row" } },
          y: { type: view.log ? "logarithmic" : "linear",
            title: { display: true, text: yTitle(view, s.units) },
            ticks: { callback: function (v) { return yTick(view, v); } } }
        }
      },
      plugins: [background]
    };
    var x = config.options.scales.x;
    if (view.type === "bar") {
      // One bar per row, in the result's order; each colour a series with gaps elsewhere,
      // drawn over the full width of its slot (not side by side).
      config.data.labels = s.points.map(function (p) { return formatX(view, p.x); });
      config.options.datasets = { bar: { grouped: false, skipNull: true } };
      x.ticks = { autoSkip: true, callback: function (v) { return cut(this.getLabelForValue(v)); } };
      s.groups.forEach(function (g, i) {
        var values = s.points.map(function () { return null; });
        g.points.forEach(function (p) { values[s.points.indexOf(p)] = p.y; });
        config.data.datasets.push({ label: g.name, data: values,
          backgroundColor: colourOf(g, i), borderColor: colourOf(g, i) });
      });
      return config;
    }
    if (view.xKind === "label") {
      var labels = [];
      s.points.forEach(function (p) { if (labels.indexOf(p.x) < 0) { labels.push(p.x); } });
      config.data.labels = labels;
      x.type = "category";
      x.ticks = { callback: function (v) { return cut(this.getLabelForValue(v)); } };
    } else {
      x.type = "linear";
      x.ticks = { callback: function (v) { return formatX(view, v); } };
    }
    var sorted = function (points) {
      points = points.map(function (p) { return { x: p.x, y: p.y }; });
      if (view.type === "line" && view.xKind !== "label") {
        points.sort(function (a, b) { return a.x - b.x; });
      }
      return points;
    };
    if (view.series && s.lines.length) {
      // One dataset per line of the series column, in its colour group's colour; the key
      // lists each colour once (the first line of the group stands for it).
      var keyed = {};
      s.lines.forEach(function (line) {
        var g = s.groups[line.group];
        config.data.datasets.push({ label: g.name, bgSeries: line.name,
          bgKey: !keyed[line.group], data: sorted(line.points),
          showLine: view.type === "line", pointRadius: view.type === "line" ? 2 : 3.5,
          borderWidth: 1.5, backgroundColor: colourOf(g, line.group),
          borderColor: colourOf(g, line.group) });
        keyed[line.group] = true;
      });
      config.options.plugins.legend.labels = { filter: function (item, chartData) {
        return chartData.datasets[item.datasetIndex].bgKey;
      } };
      config.options.plugins.tooltip.callbacks.label = function (item) {
        var y = typeof item.raw === "object" && item.raw ? item.raw.y : item.raw;
        return item.dataset.bgSeries + " (" + item.dataset.label + "): " +
          Number(y).toLocaleString("en", { maximumSignificantDigits: 4 }) + unit;
      };
      return config;
    }
    s.groups.forEach(function (g, i) {
      config.data.datasets.push({ label: g.name, data: sorted(g.points),
        showLine: view.type === "line",
        pointRadius: view.type === "line" ? 2 : 3.5, borderWidth: 2,
        backgroundColor: colourOf(g, i), borderColor: colourOf(g, i) });
    });
    return config;
  }

  function select(name, options, value, onChange) {
    var label = element("label", "bg-control");
    label.appendChild(element("span", null, name + " "));
    var s = element("select");
    s.name = name;
    options.forEach(function (o) {
      var option = element("option", null, o[1]);
      option.value = o[0];
      option.selected = o[0] === value;
      s.appendChild(option);
    });
    s.addEventListener("change", function () { onChange(s.value); });
    label.appendChild(s);
    return label;
  }

  class ChartPlugin {
    constructor(yasr) {
      this.yasr = yasr;
      this.label = "Chart";
      this.priority = 5; // a result opens as a table unless a chart is asked for
      this.asked = {};
      this.chart = null;
      this.drawn = null;
    }

    canHandleResults() {
      var r = this.yasr.results;
      if (!r || !r.getVariables || !r.getBindings || r.getError && r.getError()) { return false; }
      var variables = r.getVariables() || [];
      return variables.length > 0 && data.chartable(variables, r.getBindings() || []);
    }

    // What to draw next (from a saved query's view, a shared link, or the controls).
    setView(view) {
      this.asked = Object.assign({}, view || {});
    }

    view() {
      var v = this.drawn || {};
      return { type: v.type, x: v.x, y: v.y, color: v.color, series: v.series, unit: v.unit,
        unitText: v.unitText, log: v.log, group: this.asked.group };
    }

    change(key, value) {
      var next = Object.assign({}, this.view());
      next.unitValue = this.asked.unitValue;
      next.groupValue = this.asked.groupValue;
      next[key] = value;
      if (key === "x") { next.type = this.asked.type; }
      this.asked = next;
      this.draw();
    }

    draw() {
      this.destroy();
      var r = this.yasr.results;
      var variables = r.getVariables();
      var bindings = r.getBindings();
      var prefixes = this.yasr.getPrefixes();
      var kinds = data.kinds(variables, bindings);
      var view = data.complete(this.asked, variables, bindings, prefixes);
      var s = data.series(view, variables, bindings, prefixes);
      this.drawn = view;
      this.points = s.points;
      this.allUnits = s.allUnits;
      this.unitShown = s.units[0];
      this.comparable = s.comparable;
      this.groupShown = s.groupShown;
      this.drawControls(view, variables, kinds);

      var figure = element("figure", "bg-chart");
      var box = element("div", "bg-chart-box");
      var canvas = element("canvas");
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", view.type + " chart of ?" + view.y +
        (view.x ? " by ?" + view.x : "") + (view.color ? ", coloured by ?" + view.color : "") +
        (view.series ? ", a line per ?" + view.series : ""));
      box.appendChild(canvas);
      figure.appendChild(box);
      if (s.allUnits && s.allUnits.length > 1) {
        s.notes.unshift("?" + view.y + " is given in " + s.allUnits.length + " units (" +
          s.allUnits.join(", ") + "): the chart shows one at a time, " + s.units[0] +
          " now; choose another under \u201cunit\u201d above.");
      }
      if (s.split) {
        s.notes.unshift("The rows differ by ?" + s.split.column + " (" + s.split.values.join(", ") +
          "): each label says which, and rows of different ones are not alike.");
      }
      if (s.comparable.length > 1) {
        s.notes.unshift("These rows mix " + s.comparable.length + " comparable groups (by " +
          view.group.map(function (v) { return "?" + v; }).join(", ") + "): the chart shows " +
          "one at a time, " + s.groupShown + " now (" + s.points.length + " row" +
          (s.points.length === 1 ? "" : "s") + "); choose another under \u201cgroup\u201d " +
          "above, or narrow the question with its parameters.");
      } else if (s.comparable.length === 1) {
        s.notes.unshift("One comparable group: " + s.groupShown + ".");
      }
      s.notes.forEach(function (n) { figure.appendChild(element("p", "bg-chart-note", n)); });
      this.figure = figure;
      this.yasr.resultsEl.appendChild(figure);
      this.chart = new window.Chart(canvas, configure(view, s));
      document.dispatchEvent(new CustomEvent("bg-view", { detail: this.view() }));
    }

    drawControls(view, variables, kinds) {
      var self = this;
      var bar = element("div", "bg-chart-controls");
      var columns = function (filter) {
        return variables.filter(filter).map(function (v) { return [v, "?" + v]; });
      };
      bar.appendChild(select("view", [["bar", "bar"], ["line", "line"], ["scatter", "scatter"]],
        view.type, function (v) { self.change("type", v); }));
      bar.appendChild(select("x", columns(function (v) { return kinds[v] !== "empty"; }),
        view.x, function (v) { self.change("x", v); }));
      bar.appendChild(select("y", columns(function (v) { return kinds[v] === "number"; }),
        view.y, function (v) { self.change("y", v); }));
      bar.appendChild(select("colour", [["", "none"]].concat(columns(function (v) {
        return kinds[v] !== "empty";
      })), view.color || "", function (v) { self.change("color", v); }));
      bar.appendChild(select("series", [["", "none"]].concat(columns(function (v) {
        return kinds[v] !== "empty";
      })), view.series || "", function (v) { self.change("series", v || null); }));
      if (this.comparable && this.comparable.length > 1) {
        bar.appendChild(select("group", this.comparable.map(function (g) {
          return [g.name, g.name + " (" + g.rows + ")"];
        }), this.groupShown, function (v) { self.asked.groupValue = v; self.draw(); }));
      }
      if (this.allUnits && this.allUnits.length > 1) {
        bar.appendChild(select("unit", this.allUnits.map(function (u) { return [u, u]; }),
          this.unitShown, function (v) { self.asked.unitValue = v; self.draw(); }));
      }
      var log = element("label", "bg-control");
      var box = element("input");
      box.type = "checkbox";
      box.name = "log";
      box.checked = !!view.log;
      box.addEventListener("change", function () { self.change("log", box.checked); });
      log.appendChild(box);
      log.appendChild(element("span", null, " log scale"));
      bar.appendChild(log);
      var png = element("a", "bg-download", "PNG");
      png.download = "benchgraph-chart.png";
      png.href = "#";
      png.addEventListener("click", function () {
        png.href = self.chart.toBase64Image("image/png", 1);
      });
      var csv = element("a", "bg-download", "CSV");
      csv.download = "benchgraph-chart.csv";
      csv.href = "#";
      csv.addEventListener("click", function () {
        csv.href = "data:text/csv;charset=utf-8," +
          encodeURIComponent(data.csv(self.drawn, self.points));
      });
      var downloads = element("span", "bg-chart-downloads", "Download the chart: ");
      downloads.appendChild(png);
      downloads.appendChild(document.createTextNode(" "));
      downloads.appendChild(csv);
      bar.appendChild(downloads);
      this.controls = bar;
      this.yasr.pluginControls.appendChild(bar);
    }

    // YASR's own download button: the chart's data, as the CSV link gives it.
    download() {
      var self = this;
      if (!this.drawn) { return undefined; }
      return { title: "Download the chart's data (CSV)", contentType: "text/csv",
        filename: "benchgraph-chart.csv",
        getData: function () { return data.csv(self.drawn, self.points); } };
    }

    getIcon() {
      var ns = "http://www.w3.org/2000/svg";
      var svg = document.createElementNS(ns, "svg");
      svg.setAttribute("viewBox", "0 0 16 16");
      svg.setAttribute("width", "16");
      svg.setAttribute("height", "16");
      [[1, 9, 3, 6], [6, 4, 3, 11], [11, 7, 3, 8]].forEach(function (r) {
        var rect = document.createElementNS(ns, "rect");
        rect.setAttribute("x", r[0]);
        rect.setAttribute("y", r[1]);
        rect.setAttribute("width", r[2]);
        rect.setAttribute("height", r[3]);
        rect.setAttribute("fill", "currentColor");
        svg.appendChild(rect);
      });
      var holder = element("div");
      holder.appendChild(svg);
      return holder;
    }

    destroy() {
      if (this.chart) { this.chart.destroy(); this.chart = null; }
      if (this.controls) { this.controls.remove(); this.controls = null; }
      if (this.figure) { this.figure.remove(); this.figure = null; }
    }
  }

  window.benchgraph = window.benchgraph || {};
  window.benchgraph.ChartPlugin = ChartPlugin;
  window.benchgraph.configureChart = configure;
  window.benchgraph.cutLabel = cut;
})();
