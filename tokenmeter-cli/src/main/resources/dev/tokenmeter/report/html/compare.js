// Draws compare.html's overlays from the tm-data JSON with the helpers of charts.js (tm). Every
// number comes from data.compare, the page's copy of compare.json: data.points says, per matched
// load, which comparison, stage and side (baseline or run) hold each run's values.
(function () {
  'use strict';
  const { data, make, axis, line } = tm;
  const cmp = data.compare;
  const runs = data.runs;
  const points = data.points;
  const labels = points.map((p) => p.label);
  const loadAxis = axis('load (' + data.loadAxis + ')');

  function stageOf(entry) {
    return cmp.comparisons[entry.comparison].stages[entry.stage];
  }
  // Run r's value of compare.json row `key` at every point; null where the run lacks the load.
  function rowValues(run, key) {
    return points.map((p) => {
      const e = p.entries.find((x) => x.run === run);
      if (!e) return null;
      const row = stageOf(e).rows.find((x) => x.key === key);
      return row ? row[e.side] : null;
    });
  }

  const degradation = [];
  runs.forEach((run, i) => {
    degradation.push(line(run + ' per-user TPS p50', rowValues(run, 'decode_tps_p50'), i));
    degradation.push(line(run + ' per-user TPS p10', rowValues(run, 'decode_tps_p10'), i, { borderDash: [6, 4] }));
    degradation.push(line(run + ' output tokens/s', rowValues(run, 'output_tps'), i,
      { borderDash: [2, 3], pointStyle: 'rectRot', yAxisID: 'y2' }));
  });
  make('chart-degradation', {
    type: 'line',
    data: { labels: labels, datasets: degradation },
    options: { interaction: { mode: 'index', intersect: false }, scales: {
      x: loadAxis, y: axis('per-user tokens/s', { beginAtZero: true }),
      y2: axis('aggregate tokens/s', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } }
  });
  for (const metric of ['ttft', 'tpot']) {
    const name = metric.toUpperCase();
    const datasets = [];
    runs.forEach((run, i) => {
      datasets.push(line(run + ' ' + name + ' p50 (ms)', rowValues(run, metric + '_p50'), i));
      datasets.push(line(run + ' ' + name + ' p99 (ms)', rowValues(run, metric + '_p99'), i, { borderDash: [6, 4] }));
    });
    make('chart-' + metric, {
      type: 'line',
      data: { labels: labels, datasets: datasets },
      options: { interaction: { mode: 'index', intersect: false },
        scales: { x: loadAxis, y: axis(name + ' (ms)', { beginAtZero: true }) } }
    });
  }

  points.forEach((p, k) => {
    for (const metric of ['ttft', 'tpot']) {
      const datasets = p.entries.map((e) => line(e.run,
        stageOf(e).curves[e.side].cdf[metric + '_ms'].filter((q) => q[0] > 0).map((q) => ({ x: q[0], y: q[1] })),
        runs.indexOf(e.run), { pointRadius: 0 }));
      make('chart-cdf-' + metric + '-' + k, {
        type: 'line',
        data: { datasets: datasets },
        options: { scales: { x: axis(metric.toUpperCase() + ' (ms)', { type: 'logarithmic' }),
          y: axis('fraction of requests', { min: 0, max: 1 }) } }
      });
    }
  });
})();
