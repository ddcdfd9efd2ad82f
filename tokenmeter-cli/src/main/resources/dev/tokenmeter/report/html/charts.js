// Chart helpers shared by tokenmeter's pages (report.html, compare.html), on the inlined Chart.js:
// the page's tm-data JSON, colours from the CSS, one made chart per canvas id kept in
// window.tmCharts (the browser tests read the plotted data back from there), axis and line
// dataset shorthands, and the shading of warm-up and cool-down.
const tm = (function () {
  'use strict';
  const data = JSON.parse(document.getElementById('tm-data').textContent);
  const css = getComputedStyle(document.documentElement);
  const color = (name) => css.getPropertyValue('--' + name).trim();
  const palette = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map(color);
  const pick = (i) => palette[i % palette.length];
  Chart.defaults.color = color('muted');
  Chart.defaults.borderColor = color('line');
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", sans-serif';
  const charts = {};
  window.tmCharts = charts;

  function make(id, config) {
    const canvas = document.getElementById(id);
    if (canvas) {
      charts[id] = new Chart(canvas, config);
    }
  }
  function axis(title, extra) {
    return Object.assign({ title: { display: true, text: title } }, extra || {});
  }
  function line(label, values, i, extra) {
    return Object.assign({ label: label, data: values, borderColor: pick(i), backgroundColor: pick(i),
      pointRadius: 3, borderWidth: 2, spanGaps: false }, extra || {});
  }
  // The two edges of a confidence band around the line before them: the upper edge fills down to
  // the lower one. Hidden from the legend (legend.labels.filter below) and tooltips.
  function band(label, low, high, i) {
    const edge = { pointRadius: 0, borderWidth: 0, tmBand: true, spanGaps: false };
    return [
      line(label + ' lower', low, i, edge),
      line(label + ' upper', high, i, Object.assign({}, edge, { fill: '-1', backgroundColor: pick(i) + '33' }))
    ];
  }
  Chart.defaults.plugins.legend.labels.filter = (item, d) => !d.datasets[item.datasetIndex].tmBand;
  Chart.defaults.plugins.tooltip.filter = (item) => !item.dataset.tmBand;

  // Shades warm-up and cool-down behind a stage's series (options.plugins.phaseShade.phases).
  const phaseShade = {
    id: 'phaseShade',
    beforeDatasetsDraw(chart, args, opts) {
      const area = chart.chartArea;
      const x = chart.scales.x;
      chart.ctx.save();
      chart.ctx.fillStyle = color('shade');
      for (const [name, start, end] of (opts.phases || [])) {
        if (name === 'measured' || start === null || end === null) continue;
        const x0 = Math.max(area.left, x.getPixelForValue(start));
        const x1 = Math.min(area.right, x.getPixelForValue(end));
        if (x1 > x0) chart.ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
      }
      chart.ctx.restore();
    }
  };

  return { data, color, pick, make, axis, line, band, phaseShade };
})();
