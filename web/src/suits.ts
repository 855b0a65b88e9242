// Suit symbols drawn as SVG (no font or emoji needed): the French suits and the Swiss
// suits of Jass (roses, bells, acorns, shields).
import { s } from "./dom";
import type { Suit } from "./cards";

const RED = "#c62828";
const BLACK = "#1d1d1f";

function shapes(suit: Suit): SVGElement[] {
  switch (suit) {
    case "hearts":
      return [
        s("path", {
          d: "M50 90C22 66 6 48 6 29 6 15 17 5 30 5c9 0 16 5 20 13 4-8 11-13 20-13 13 0 24 10 24 24 0 19-16 37-44 61z",
          fill: RED,
        }),
      ];
    case "diamonds":
      return [s("path", { d: "M50 4 86 50 50 96 14 50z", fill: RED })];
    case "spades":
      return [
        s("path", {
          d: "M50 5C68 30 94 42 94 62c0 13-10 21-21 21-8 0-15-4-19-11 1 11 5 18 13 24H33c8-6 12-13 13-24-4 7-11 11-19 11C16 83 6 75 6 62 6 42 32 30 50 5z",
          fill: BLACK,
        }),
      ];
    case "clubs":
      return [
        s("circle", { cx: 50, cy: 28, r: 19, fill: BLACK }),
        s("circle", { cx: 27, cy: 58, r: 19, fill: BLACK }),
        s("circle", { cx: 73, cy: 58, r: 19, fill: BLACK }),
        s("path", { d: "M46 50h8c1 20 5 34 14 46H32c9-12 13-26 14-46z", fill: BLACK }),
      ];
    case "roses": {
      const petals = [0, 72, 144, 216, 288].map((deg) => {
        const r = (deg * Math.PI) / 180;
        return s("circle", {
          cx: (50 + 21 * Math.sin(r)).toFixed(1),
          cy: (50 - 21 * Math.cos(r)).toFixed(1),
          r: 18,
          fill: "#d32f2f",
          stroke: "#8e1b1b",
          "stroke-width": 2,
        });
      });
      return [...petals, s("circle", { cx: 50, cy: 50, r: 12, fill: "#f6c945", stroke: "#a0781a", "stroke-width": 2 })];
    }
    case "bells":
      return [
        s("circle", { cx: 50, cy: 10, r: 6, fill: "#b8860b" }),
        s("path", {
          d: "M50 12c-15 0-23 12-23 28v18c0 9-8 15-15 21h76c-7-6-15-12-15-21V40c0-16-8-28-23-28z",
          fill: "#e8b418",
          stroke: "#8a6500",
          "stroke-width": 3,
        }),
        s("rect", { x: 16, y: 76, width: 68, height: 7, rx: 3, fill: "#c0392b" }),
        s("circle", { cx: 50, cy: 90, r: 7, fill: "#8a6500" }),
      ];
    case "acorns":
      return [
        s("ellipse", { cx: 50, cy: 62, rx: 23, ry: 30, fill: "#d09a45", stroke: "#7a5320", "stroke-width": 3 }),
        s("path", { d: "M20 46c0-20 14-30 30-30s30 10 30 30z", fill: "#6b4a2b", stroke: "#3e2a16", "stroke-width": 3 }),
        s("path", { d: "M48 17c0-7 3-11 8-13", stroke: "#3e2a16", "stroke-width": 5, fill: "none" }),
        s("path", { d: "M30 38h40M27 30h46", stroke: "#8d6a45", "stroke-width": 3 }),
      ];
    case "shields":
      return [
        s("path", { d: "M14 8h72v40c0 24-17 39-36 48C31 87 14 72 14 48z", fill: "#f1c40f", stroke: BLACK, "stroke-width": 4 }),
        s("path", { d: "M38 8h24v85c-4 2-8 3-12 3s-8-1-12-3z", fill: "#c0392b" }),
        s("path", { d: "M14 8h72v40c0 24-17 39-36 48C31 87 14 72 14 48z", fill: "none", stroke: BLACK, "stroke-width": 4 }),
      ];
  }
}

/** A suit symbol; `size` in CSS pixels. */
export function suitIcon(suit: Suit, size = 18): SVGElement {
  const svg = s("svg", { viewBox: "0 0 100 100", width: size, height: size, class: `suit suit-${suit}`, role: "img" }, ...shapes(suit));
  const title = s("title");
  title.textContent = suit;
  svg.prepend(title);
  return svg;
}
