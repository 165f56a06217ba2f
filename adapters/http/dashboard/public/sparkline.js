// A sparkline of hourly counts as inline SVG: a line over an area, the last hour marked. Built
// with createElementNS and attributes only (no markup from data, no inline style: the CSP holds).

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 32;
const STEP = 3; // px per hour in the viewBox; the SVG scales to its box

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/** `counts` oldest first, one per hour; `label` says what it shows, for screen readers and hover. */
export function sparkline(counts, label) {
  const max = Math.max(1, ...counts);
  const width = Math.max(1, counts.length - 1) * STEP;
  const x = (i) => i * STEP;
  const y = (n) => HEIGHT - 2 - (n / max) * (HEIGHT - 4);
  const points = counts.map((n, i) => `${x(i)},${y(n).toFixed(1)}`).join(" ");
  const last = counts.length - 1;
  return s(
    "svg",
    {
      class: "sparkline",
      viewBox: `0 0 ${width} ${HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": label,
      "data-points": String(counts.length),
    },
    s("title", {}, label),
    s("polygon", { class: "sparkline-area", points: `0,${HEIGHT} ${points} ${width},${HEIGHT}` }),
    s("polyline", { class: "sparkline-line", points, "vector-effect": "non-scaling-stroke" }),
    s("circle", { class: "sparkline-last", cx: x(last), cy: y(counts[last] ?? 0).toFixed(1), r: 2 }),
  );
}

/** Hourly rows `{hour, evaluations}` spread over `hours` slots ending with the current hour. */
export function hourlyCounts(rows, start, hours, hourMs = 3_600_000) {
  const counts = new Array(hours).fill(0);
  for (const row of rows) {
    const slot = Math.floor((Date.parse(row.hour) - start) / hourMs);
    if (slot >= 0 && slot < hours) counts[slot] += row.evaluations;
  }
  return counts;
}
