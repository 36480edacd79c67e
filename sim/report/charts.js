// bnsim's report charts, drawn with Chart.js (Debian's libjs-chart.js, inlined in the page
// beside this file; nothing is fetched). Each chart is a <script type="application/json"
// class="bnsim-chart"> holding its spec, written by sim/report/chart_page.cpp; this code turns
// every spec into a canvas when the page loads. The spec's kind picks the drawing:
//   heatmap  a grid of values on a colour scale, with the scale's legend and marked cells
//   lines    series over categories, on a linear or log value axis
//   bars     grouped bars: one group per category, one bar per series
//   ranges   horizontal bars from a low to a high value around a base line (a tornado chart)
//   scatter  measured against predicted, with the y = x line and a band around it
//   spans    rows of [start, end] spans, coloured by a key (phase windows by binding unit)
// Axes carry their titles (with units) from the spec; log axes tick at 1, 2 and 5 times a power
// of ten. When done the page's <body> has data-charts="N" (charts drawn) and data-chart-errors
// (the error of each chart that failed), which the tests read through headless Chromium.
(function () {
  'use strict';

  // Viridis, five stops: low values dark blue, high values yellow.
  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function viridis(t) {
    t = Math.min(1, Math.max(0, t)) * 4;
    const i = Math.min(3, Math.floor(t)), f = t - i;
    const c = VIRIDIS[i].map((v, k) => Math.round(v + f * (VIRIDIS[i + 1][k] - v)));
    return { css: 'rgb(' + c.join(',') + ')', light: 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 140 };
  }

  // Where v sits on the scale [lo, hi], 0 to 1 (log: the values span a wide range).
  function position(v, lo, hi, log) {
    if (!(hi > lo)) return 0;
    return log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo);
  }

  // Round ticks within [lo, hi]: 1, 2, 5 times powers of ten on a log scale, else steps of 1, 2
  // or 5 times a power of ten giving about five ticks.
  function roundTicks(lo, hi, log) {
    const out = [];
    if (!(hi > lo)) return [lo];
    if (log) {
      for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); ++e)
        for (const m of [1, 2, 5]) {
          const v = m * Math.pow(10, e);
          if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
        }
      if (out.length >= 2) return out;
    }
    const raw = (hi - lo) / 5, p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
    for (let v = Math.ceil(lo / step) * step; v <= hi * (1 + 1e-9); v += step) out.push(+v.toPrecision(12));
    return out;
  }

  // [lo, hi] widened to round values: 1, 2 or 5 times a power of ten on a log scale, else
  // multiples of the round tick step.
  function roundBounds(lo, hi, log) {
    if (log) {
      const down = (v) => { const p = Math.pow(10, Math.floor(Math.log10(v))); return [5, 2, 1].map((m) => m * p).find((x) => x <= v * (1 + 1e-9)); };
      const up = (v) => { const p = Math.pow(10, Math.floor(Math.log10(v))); return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= v * (1 - 1e-9)); };
      return [down(lo), up(hi)];
    }
    const t = roundTicks(lo, hi, false), step = t.length > 1 ? t[1] - t[0] : Math.abs(lo) || 1;
    return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
  }

  function tickText(v) {
    return Math.abs(v) >= 1000 || v === Math.round(v) ? v.toLocaleString('en-US', { maximumFractionDigits: 0 })
                                                         : +v.toPrecision(3) + '';
  }

  function axis(a, extra) {
    const s = Object.assign({ title: { display: !!a.title, text: a.title || '' } }, extra || {});
    if (a.log) {
      s.type = 'logarithmic';
      s.ticks = { autoSkip: false, callback: (v) => { const m = v / Math.pow(10, Math.floor(Math.log10(v)) );
                                     return [1, 2, 5].some((k) => Math.abs(m - k) < 1e-9) ? tickText(v) : ''; } };
    }
    if (a.min !== undefined) s.min = a.min;
    if (a.max !== undefined) s.max = a.max;
    return s;
  }

  function base(spec) {
    return {
      animation: false,
      responsive: false,
      plugins: {
        title: { display: true, text: spec.title, align: 'start', font: { size: 14, weight: 'bold' } },
        subtitle: { display: !!spec.note, text: spec.note || '', align: 'start', padding: { bottom: 8 } },
      },
    };
  }

  // Text drawn over the chart after its datasets (cell values, bar-end labels).
  function text(ctx, s, x, y, opts) {
    ctx.save();
    ctx.font = (opts.bold ? 'bold ' : '') + (opts.size || 11) + 'px sans-serif';
    ctx.fillStyle = opts.color || '#222';
    ctx.textAlign = opts.align || 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(s, x, y);
    ctx.restore();
  }

  // heatmap: {title, note, x: {title, labels}, y: {title, labels}, scale: {title, min, max, log},
  //   cells: [row per y label: [per x label: {value|null, text, tip, mark: ""|"best"|"tied",
  //   own: bool}]]}. Drawn as stacked unit bars, one stack per x label and one bar per y label.
  function heatmap(canvas, spec) {
    const sc = spec.scale, ny = spec.y.labels.length;
    const colour = (c) => (c.value === null ? { css: '#dddddd', light: true }
                                           : viridis(position(c.value, sc.min, sc.max, sc.log)));
    const datasets = spec.cells.map((row, yi) => ({
      label: spec.y.labels[yi],
      data: row.map(() => 1),
      backgroundColor: row.map((c) => colour(c).css),
      borderColor: '#ffffff',
      borderWidth: 1,
      barPercentage: 1,
      categoryPercentage: 1,
      stack: 'grid',
    }));
    const options = base(spec);
    options.layout = { padding: { right: 110 } };
    options.plugins.legend = { display: false };
    options.plugins.tooltip = {
      callbacks: { title: () => '', label: (c) => spec.cells[c.datasetIndex][c.dataIndex].tip },
    };
    options.scales = {
      x: axis(spec.x, { stacked: true, grid: { display: false } }),
      y: axis(spec.y, {
        stacked: true, min: 0, max: ny, grid: { display: false },
        afterBuildTicks: (a) => { a.ticks = spec.y.labels.map((_, i) => ({ value: i + 0.5 })); },
        ticks: { callback: (v) => spec.y.labels[Math.floor(v)] },
      }),
    };
    const cellsAndLegend = {
      id: 'bnsimHeatmap',
      afterDatasetsDraw(chart) {
        const ctx = chart.ctx;
        chart.data.datasets.forEach((_, yi) => {
          chart.getDatasetMeta(yi).data.forEach((bar, xi) => {
            const c = spec.cells[yi][xi], p = bar.getProps(['x', 'y', 'base', 'width'], true);
            const top = Math.min(p.y, p.base), h = Math.abs(p.base - p.y), left = p.x - p.width / 2;
            text(ctx, c.text, p.x, top + h / 2, { color: colour(c).light ? '#000' : '#fff' });
            if (c.own) {
              ctx.save();
              ctx.strokeStyle = '#ff2d55';
              ctx.lineWidth = 3;
              ctx.strokeRect(left + 2.5, top + 2.5, p.width - 5, h - 5);
              ctx.restore();
            }
            if (c.mark) text(ctx, c.mark === 'best' ? '\u2605' : '\u2606', left + p.width - 9, top + 9,
                             { color: '#ff2d55', size: 13 });
          });
        });
        // The colour scale: a vertical bar right of the grid, ticked like an axis.
        const a = chart.chartArea, x0 = a.right + 24, w = 14;
        const g = ctx.createLinearGradient(0, a.bottom, 0, a.top);
        for (let i = 0; i <= 20; ++i) g.addColorStop(i / 20, viridis(i / 20).css);
        ctx.save();
        ctx.fillStyle = g;
        ctx.fillRect(x0, a.top, w, a.bottom - a.top);
        ctx.strokeStyle = '#999';
        ctx.strokeRect(x0, a.top, w, a.bottom - a.top);
        for (const v of roundTicks(sc.min, sc.max, sc.log)) {
          const y = a.bottom - position(v, sc.min, sc.max, sc.log) * (a.bottom - a.top);
          ctx.beginPath();
          ctx.moveTo(x0 + w, y);
          ctx.lineTo(x0 + w + 4, y);
          ctx.stroke();
          text(ctx, tickText(v), x0 + w + 7, y, { align: 'left', color: '#444' });
        }
        ctx.translate(x0 + w + 62, (a.top + a.bottom) / 2);
        ctx.rotate(-Math.PI / 2);
        text(ctx, sc.title, 0, 0, { color: '#444' });
        ctx.restore();
      },
    };
    return new Chart(canvas, { type: 'bar', data: { labels: spec.x.labels, datasets }, options,
                               plugins: [cellsAndLegend] });
  }

  const SERIES = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                  '#bcbd22', '#17becf'];

  // lines: {title, note, x: {title, labels}, y: {title, log, min, max}, series: [{label, values
  //   (null: no point), tips}]}
  function lines(canvas, spec) {
    const options = base(spec);
    options.plugins.legend = { position: 'right', labels: { boxWidth: 12 } };
    options.plugins.tooltip = {
      callbacks: { label: (c) => spec.series[c.datasetIndex].tips[c.dataIndex] },
    };
    options.scales = { x: axis(spec.x), y: axis(spec.y) };
    const datasets = spec.series.map((s, i) => ({
      label: s.label, data: s.values, borderColor: SERIES[i % 10], backgroundColor: SERIES[i % 10],
      borderWidth: 1.5, pointRadius: 3, spanGaps: false,
    }));
    return new Chart(canvas, { type: 'line', data: { labels: spec.x.labels, datasets }, options });
  }

  // bars: {title, note, x: {title, labels}, y: {title, log}, series: [{label, values, tips}]}
  function bars(canvas, spec) {
    const options = base(spec);
    options.plugins.legend = { position: 'top', align: 'start', labels: { boxWidth: 12 } };
    options.plugins.tooltip = {
      callbacks: { label: (c) => spec.series[c.datasetIndex].tips[c.dataIndex] },
    };
    options.scales = { x: axis(spec.x, { grid: { display: false } }), y: axis(spec.y, spec.y.log ? {} : { min: 0 }) };
    const datasets = spec.series.map((s, i) => ({
      label: s.label, data: s.values, backgroundColor: SERIES[i % 10], barPercentage: 0.85,
    }));
    return new Chart(canvas, { type: 'bar', data: { labels: spec.x.labels, datasets }, options });
  }

  // ranges: {title, note, x: {title, log}, base: {value, label}, bars: [{label, low, high,
  //   low_text, high_text, colour, tip}]}: each bar spans [low, high]; the base value is a line.
  function ranges(canvas, spec) {
    const options = base(spec);
    options.indexAxis = 'y';
    options.layout = { padding: { right: 60, left: 10 } };
    options.plugins.subtitle.padding = { bottom: 20 };  // room for the base line's label
    options.plugins.legend = { display: false };
    options.plugins.tooltip = { callbacks: { label: (c) => spec.bars[c.dataIndex].tip } };
    // The value axis spans the bars and the base line, widened to round ticks, not from zero:
    // the ranges are small beside the base value.
    const ends = spec.bars.flatMap((b) => [b.low, b.high]).concat([spec.base.value]);
    const t = roundTicks(Math.min(...ends), Math.max(...ends), false), step = t.length > 1 ? t[1] - t[0] : 1;
    const lo = Math.min(...ends), hi = Math.max(...ends);
    options.scales = {
      x: axis(spec.x, { min: Math.floor(lo / step - 0.5) * step, max: Math.ceil(hi / step + 0.5) * step }),
      y: { grid: { display: false } },
    };
    const data = spec.bars.map((b) => [b.low, b.high]);
    const endLabels = {
      id: 'bnsimRanges',
      afterDatasetsDraw(chart) {
        const ctx = chart.ctx, xs = chart.scales.x, a = chart.chartArea;
        chart.getDatasetMeta(0).data.forEach((bar, i) => {
          const b = spec.bars[i], y = bar.getProps(['y'], true).y;
          text(ctx, b.low_text, xs.getPixelForValue(b.low) - 4, y, { align: 'right', color: '#444', size: 10 });
          text(ctx, b.high_text, xs.getPixelForValue(b.high) + 4, y, { align: 'left', color: '#444', size: 10 });
        });
        const x = xs.getPixelForValue(spec.base.value);
        ctx.save();
        ctx.strokeStyle = '#222';
        ctx.setLineDash([4, 3]);
        ctx.beginPath();
        ctx.moveTo(x, a.top);
        ctx.lineTo(x, a.bottom);
        ctx.stroke();
        ctx.restore();
        text(ctx, spec.base.label, x + 4, a.top - 9, { align: 'left', color: '#222', size: 10 });  // above the bars
      },
    };
    return new Chart(canvas, {
      type: 'bar',
      data: { labels: spec.bars.map((b) => b.label),
              datasets: [{ data, backgroundColor: spec.bars.map((b) => b.colour), barPercentage: 0.7 }] },
      options, plugins: [endLabels],
    });
  }

  // scatter: {title, note, x: {title, log}, y: {title, log}, band_pct, series: [{label, points:
  //   [{x, y, tip}]}]}: the points, the y = x line and y = x (1 +- band_pct / 100).
  function scatter(canvas, spec) {
    const all = spec.series.flatMap((s) => s.points);
    const xs = all.map((p) => p.x), ys = all.map((p) => p.y);
    const [lo, hi] = roundBounds(Math.min(...xs, ...ys) / 1.1, Math.max(...xs, ...ys) * 1.1, spec.x.log);
    const options = base(spec);
    options.plugins.legend = { position: 'bottom', labels: { boxWidth: 12, filter: (l) => l.text !== '' } };
    const n = spec.series.length;
    options.plugins.tooltip = {
      callbacks: { label: (c) => (c.datasetIndex < n ? spec.series[c.datasetIndex].points[c.dataIndex].tip : '') },
    };
    const x = axis(spec.x, { min: lo, max: hi }), y = axis(spec.y, { min: lo, max: hi });
    options.scales = { x, y };
    const line = (f, label, dash) => ({
      type: 'line', label, data: [{ x: lo, y: lo * f }, { x: hi, y: hi * f }], borderColor: '#888',
      borderWidth: 1, borderDash: dash, pointRadius: 0, fill: false,
    });
    const band = spec.band_pct / 100;
    const points = spec.series.map((s, i) => ({
      label: s.label, data: s.points.map((p) => ({ x: p.x, y: p.y })), backgroundColor: SERIES[i % 10], pointRadius: 4,
    }));
    return new Chart(canvas, {
      type: 'scatter',
      data: { datasets: points.concat([
        line(1, 'predicted = measured', []),
        line(1 + band, 'within \u00b1' + spec.band_pct + '%', [4, 3]),
        line(1 - band, '', [4, 3]),
      ]) },
      options,
    });
  }

  // spans: {title, note, x: {title}, rows: [{label, spans: [{start, end, inner_end, key, tip}],
  //   end_text}], keys: [{key, colour}]}: each span light, its inner part [start, inner_end] dark.
  function spans(canvas, spec) {
    const colour = Object.fromEntries(spec.keys.map((k) => [k.key, k.colour]));
    const datasets = [];
    for (const k of spec.keys) {
      // One dataset per key and layer; a row may hold several spans of one key (two phases
      // bound by the same unit), so each span index gets its own pair of datasets.
      const most = Math.max(0, ...spec.rows.map((r) => r.spans.filter((p) => p.key === k.key).length));
      for (let n = 0; n < most; ++n)
        for (const inner of [false, true]) {
          const data = spec.rows.map((r) => {
            const s = r.spans.filter((p) => p.key === k.key)[n];
            return s ? [s.start, inner ? s.inner_end : s.end] : null;
          });
          datasets.push({
            label: n === 0 && !inner ? k.key : '', data, grouped: false,
            backgroundColor: inner ? colour[k.key] : colour[k.key] + '59',
            barPercentage: inner ? 0.45 : 0.95, categoryPercentage: 1, spanKey: k.key, inner, nth: n,
          });
        }
    }
    const options = base(spec);
    options.indexAxis = 'y';
    options.layout = { padding: { right: 70 } };
    options.plugins.legend = { position: 'top', align: 'start', labels: { boxWidth: 12, filter: (l) => l.text !== '' } };
    options.plugins.tooltip = {
      callbacks: { label: (c) => {
        const d = c.dataset, s = spec.rows[c.dataIndex].spans.filter((p) => p.key === d.spanKey)[d.nth];
        return s ? s.tip : '';
      } },
    };
    options.scales = { x: axis(spec.x, { min: 0 }), y: { grid: { display: false }, ticks: { autoSkip: false, font: { size: 10 } } } };
    const endText = {
      id: 'bnsimSpans',
      afterDatasetsDraw(chart) {
        const xs = chart.scales.x, ys = chart.scales.y;
        spec.rows.forEach((r, i) => {
          const end = Math.max(...r.spans.map((s) => s.end));
          text(chart.ctx, r.end_text, Math.min(xs.getPixelForValue(end), chart.chartArea.right) + 4,
               ys.getPixelForValue(i), { align: 'left', color: '#555', size: 10 });
        });
      },
    };
    return new Chart(canvas, { type: 'bar', data: { labels: spec.rows.map((r) => r.label), datasets }, options,
                               plugins: [endText] });
  }

  const KINDS = { heatmap, lines, bars, ranges, scatter, spans };

  function drawAll() {
    let drawn = 0;
    const errors = [];
    for (const el of document.querySelectorAll('script.bnsim-chart')) {
      try {
        const spec = JSON.parse(el.textContent);
        const canvas = document.createElement('canvas');
        canvas.width = spec.width;
        canvas.height = spec.height;
        el.parentNode.insertBefore(canvas, el);
        if (!KINDS[spec.kind]) throw new Error('unknown chart kind ' + spec.kind);
        KINDS[spec.kind](canvas, spec);
        ++drawn;
      } catch (e) {
        errors.push(String(e && e.message || e));
      }
    }
    document.body.setAttribute('data-charts', String(drawn));
    document.body.setAttribute('data-chart-errors', errors.join(' | '));
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', drawAll);
  else drawAll();
})();
