// A bar chart of counts per time slot (hours or minutes) as inline SVG, for the Overview page.
// Built with createElementNS and attributes only (no markup from data, no inline style: the CSP
// holds). Each bar carries its count (data-count) and a <title> naming its slot, for hover and tests.

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 40;
const SLOT = 4; // viewBox units per slot; the SVG stretches to its box
const GAP = 1;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/**
 * `slots`: `[{at, count}]` oldest first; `name(slot)` says what one bar is ("10:00–11:00: 3 sent").
 * A slot with nothing gets a hairline, so an empty chart still shows its time axis.
 */
export function barChart(slots, { label, kind, name }) {
  const max = Math.max(1, ...slots.map((slot) => slot.count));
  const width = slots.length * SLOT;
  const bars = slots.map((slot, i) => {
    const height = slot.count === 0 ? 0.5 : Math.max(2, (slot.count / max) * (HEIGHT - 2));
    return s(
      "rect",
      {
        class: slot.count === 0 ? "bar bar-empty" : "bar",
        x: i * SLOT + GAP / 2,
        y: (HEIGHT - height).toFixed(2),
        width: SLOT - GAP,
        height: height.toFixed(2),
        "data-at": slot.at,
        "data-count": slot.count,
      },
      s("title", {}, name(slot)),
    );
  });
  return s(
    "svg",
    {
      class: `bar-chart bar-chart-${kind}`,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": label,
      "data-slots": slots.length,
    },
    s("title", {}, label),
    ...bars,
  );
}
