// A plain SVG interval chart: one row per variant, a dot at its value and, for each variant but
// the control, a bar over the 95 % interval that the API's differenceCI95 gives around the
// control's value; a dashed line marks the control. Built with createElementNS and text nodes
// only (no markup from data), styled by class so the page's strict CSP holds.

const SVG = "http://www.w3.org/2000/svg";
const RIGHT = 24;
const ROW = 34;
const TOP = 8;
const AXIS = 28;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, String(value));
  for (const child of children) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/** 1, 2 or 5 times a power of ten: steps an axis reads easily. */
function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

function domain(rows) {
  const values = rows.flatMap((r) => [r.value, r.low, r.high]).filter((v) => v !== null && Number.isFinite(v));
  if (values.length === 0) return [0, 1];
  let min = Math.min(...values);
  let max = Math.max(...values);
  if (min === max) {
    const spread = Math.abs(min) * 0.1 || 1;
    min -= spread;
    max += spread;
  }
  const pad = (max - min) * 0.08;
  return [min - pad, max + pad];
}

/**
 * rows: [{key, value, low, high, control, verdict}] — value null for a variant without users,
 * low/high null where no interval exists (the control, or a group under 2 users).
 * verdict: "better" | "worse" | "unclear" (the interval of the difference above, below or across 0).
 * width: the drawing's width in CSS pixels (its container's), so text keeps its size on a phone.
 */
export function intervalChart({ title, rows, format, width = 720 }) {
  const WIDTH = Math.max(300, Math.round(width));
  const LABEL_WIDTH = Math.min(160, Math.round(WIDTH * 0.22));
  const height = TOP + rows.length * ROW + AXIS;
  const [min, max] = domain(rows);
  const x = (v) => LABEL_WIDTH + ((v - min) / (max - min)) * (WIDTH - LABEL_WIDTH - RIGHT);
  const titleText = s("title", {}, title);
  const description = rows
    .map((r) =>
      r.value === null
        ? `${r.key}: no users`
        : `${r.key}${r.control ? " (control)" : ""}: ${format(r.value)}` +
          (r.low === null ? "" : `, 95% interval ${format(r.low)} to ${format(r.high)}`),
    )
    .join("; ");
  const svg = s("svg", { viewBox: `0 0 ${WIDTH} ${height}`, role: "img", class: "interval-chart" }, titleText);
  svg.append(s("desc", {}, description));

  const axisY = TOP + rows.length * ROW;
  const step = niceStep((max - min) / 4);
  for (let tick = Math.ceil(min / step) * step; tick <= max; tick += step) {
    const tx = x(tick);
    svg.append(
      s("line", { x1: tx, x2: tx, y1: TOP, y2: axisY, class: "chart-grid" }),
      s("text", { x: tx, y: axisY + 18, "text-anchor": "middle", class: "chart-tick" }, format(tick)),
    );
  }
  const control = rows.find((r) => r.control && r.value !== null);
  if (control)
    svg.append(s("line", { x1: x(control.value), x2: x(control.value), y1: TOP, y2: axisY, class: "chart-reference" }));

  rows.forEach((r, i) => {
    const y = TOP + i * ROW + ROW / 2;
    const group = s("g", { class: "chart-row", "data-variant": r.key });
    group.append(
      s("text", { x: LABEL_WIDTH - 12, y: y + 4, "text-anchor": "end", class: "chart-label" }, r.key),
      s("title", {}, description.split("; ")[i]),
    );
    if (r.value === null) {
      group.append(s("text", { x: LABEL_WIDTH, y: y + 4, class: "chart-tick" }, "no users"));
    } else {
      if (r.low !== null && r.high !== null) {
        const kind = `chart-interval chart-${r.verdict}`;
        group.append(
          s("line", { x1: x(r.low), x2: x(r.high), y1: y, y2: y, class: kind, "data-low": r.low, "data-high": r.high }),
          s("line", { x1: x(r.low), x2: x(r.low), y1: y - 7, y2: y + 7, class: kind }),
          s("line", { x1: x(r.high), x2: x(r.high), y1: y - 7, y2: y + 7, class: kind }),
        );
      }
      group.append(
        s("circle", {
          cx: x(r.value),
          cy: y,
          r: 5,
          class: r.control ? "chart-point chart-control" : `chart-point chart-${r.verdict ?? "unclear"}`,
          "data-value": r.value,
        }),
      );
    }
    svg.append(group);
  });
  svg.append(s("line", { x1: LABEL_WIDTH, x2: WIDTH - RIGHT, y1: axisY, y2: axisY, class: "chart-axis" }));
  return svg;
}
