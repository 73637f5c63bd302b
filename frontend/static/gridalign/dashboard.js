/* The agreement dashboard: draws the report's charts from the JSON the page embeds
 * (#report-charts), and reloads the page when a report job it watches succeeds. */
import { PALETTE, barChart, empty, lineChart, mount, scatterChart } from "./charts.js";

const SERIES = [
  { key: "theta", name: "θ̂ (observed)", color: PALETTE[0] },
  { key: "theta0", name: "θ̂₀ (chance)", color: PALETTE[1], dash: true },
  { key: "kappa_c", name: "κ_C", color: PALETTE[2] },
];

function byLength(el, data) {
  const bins = (data.by_length || {})[el.dataset.level] || [];
  if (!bins.length) return empty(el, "No pair with a seed and units to plot.");
  lineChart(el, {
    label: `θ̂, θ̂₀ and κ_C by length of the shorter sentence, ${el.dataset.level} level`,
    categories: bins.map((b) => `${b.min_length}–${b.max_length}`),
    series: SERIES.map((s) => ({
      ...s,
      values: bins.map((b) => b[s.key]),
      titles: bins.map((b) => `${b.pairs} pairs`),
    })),
    xTitle: "Length of the shorter sentence (tokens)",
    yTitle: "Agreement",
  });
}

function pairwise(el, data) {
  const pairs = data.pairwise || [];
  if (!pairs.length) return empty(el, "Needs two or more annotators.");
  barChart(el, {
    label: "F1 for every pair of annotators",
    categories: pairs.map((p) => p.label),
    series: [
      { name: "Word F1", values: pairs.map((p) => p.word_f1), color: PALETTE[0] },
      { name: "Phrase F1", values: pairs.map((p) => p.phrase_f1), color: PALETTE[4] },
    ],
    yTitle: "F1 (%)",
  });
}

function editRates(el, data) {
  const models = (data.edit_rates || {})[el.dataset.level] || {};
  const names = Object.keys(models).sort();
  const series = names
    .map((name, k) => ({
      name,
      points: models[name].points,
      color: PALETTE[k % PALETTE.length],
      line: { intercept: models[name].intercept, slope: models[name].slope },
    }))
    .filter((s) => s.points.length);
  if (!series.length) return empty(el, "No doubly annotated pair with a seed yet.");
  scatterChart(el, {
    label: `Edit rate against sentence length, ${el.dataset.level} level`,
    series,
    xTitle: "L = N + M (tokens)",
    yTitle: "Edit rate (% of N·M cells)",
    integerX: true,
    yScale: 100,
  });
}

const DRAW = { "by-length": byLength, pairwise, "edit-rates": editRates };

function drawAll() {
  const script = document.getElementById("report-charts");
  if (!script) return;
  const data = JSON.parse(script.textContent);
  document.querySelectorAll("[data-chart]").forEach((el) => {
    const draw = DRAW[el.dataset.chart];
    if (draw) mount(el, (target) => draw(target, data));
  });
}

document.addEventListener("gridalign:job-finished", (event) => {
  const job = event.detail || {};
  if (job.kind === "report" && job.status === "succeeded") window.location.reload();
});

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
else drawAll();
