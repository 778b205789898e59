// The Run tab's draw view, for a Fragment entry point: the images the
// interpreter and WebGPU drew (core's colour attachment as 8-bit RGBA,
// `RunResult.image`), painted into canvases zoomed without smoothing, and
// a difference view. What is compared is the attachment's values: for a
// UNORM format its bytes, for a float format its floats; a pixel differs
// when a channel differs by more than 1/255. Pure functions of the images;
// panels/run.ts puts them on the page.
import type { DrawImage } from "../api";

/** The colour attachment formats a draw can have (Vulkan's names). */
export const DRAW_FORMATS = ["B8G8R8A8_UNORM", "R8G8B8A8_UNORM", "R32G32B32A32_SFLOAT", "R32_SFLOAT"] as const;

/** The zooms offered (the canvas's CSS size over its pixels). */
export const ZOOMS = [1, 2, 3, 4, 6, 8] as const;

/** How much a channel may differ and still agree: 1/255 of the range. */
const TOLERANCE = 1 / 255;

/** A float format's texel as floats (R32_SFLOAT: one), else null. */
function floats(img: DrawImage, x: number, y: number): number[] | null {
  if (!img.data) return null;
  const n = img.format === "R32_SFLOAT" ? 1 : 4;
  const at = (y * img.width + x) * n * 4;
  if (at + n * 4 > img.data.byteLength) return null;
  const v = new DataView(img.data.buffer, img.data.byteOffset + at, n * 4);
  return Array.from({ length: n }, (_, i) => v.getFloat32(i * 4, true));
}

/** Whether two channel values agree within the tolerance (NaN agrees with
 *  NaN). */
function close(a: number, b: number, scale: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return Math.abs(a - b) / scale <= TOLERANCE + 1e-9;
}

/** Whether pixel (x, y) of `a` and `b` agree. */
function samePixel(a: DrawImage, b: DrawImage, x: number, y: number): boolean {
  const fa = floats(a, x, y);
  const fb = floats(b, x, y);
  if (fa && fb) return fa.every((v, i) => close(v, fb[i], 1));
  const at = (y * a.width + x) * 4;
  for (let c = 0; c < 4; c++) if (!close(a.rgba[at + c], b.rgba[at + c], 255)) return false;
  return true;
}

/** The pixels where `a` and `b` differ (1 in a mask of width x height),
 *  and how many; null when the images are not the same size and format. */
export function difference(a: DrawImage, b: DrawImage): { mask: Uint8Array; count: number } | null {
  if (a.width !== b.width || a.height !== b.height || a.format !== b.format) return null;
  const mask = new Uint8Array(a.width * a.height);
  let count = 0;
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++)
      if (!samePixel(a, b, x, y)) {
        mask[y * a.width + x] = 1;
        count++;
      }
  return { mask, count };
}

/** The difference view: differing pixels bright magenta, the others the
 *  interpreter's image faded towards grey (so the picture stays readable
 *  around the marks). */
export function differenceImage(a: DrawImage, mask: Uint8Array): Uint8ClampedArray {
  const out = new Uint8ClampedArray(a.width * a.height * 4);
  for (let i = 0; i < mask.length; i++) {
    const o = i * 4;
    if (mask[i]) {
      out.set([255, 0, 255, 255], o);
    } else {
      for (let c = 0; c < 3; c++) out[o + c] = 96 + Math.round(a.rgba[o + c] / 4);
      out[o + 3] = 255;
    }
  }
  return out;
}

/** Paint RGBA8 rows into `canvas` (sized to the image). Alpha is shown as
 *  it is (a cleared, transparent pixel shows the page behind it). */
export function paint(canvas: HTMLCanvasElement, width: number, height: number, rgba: Uint8Array | Uint8ClampedArray) {
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d");
  if (!ctx || width === 0 || height === 0) return;
  const data = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, width * height * 4);
  ctx.putImageData(new ImageData(data.slice(), width, height), 0, 0);
}

/** A pixel's value in words, in its attachment's format: for UNORM the
 *  0..255 values in RGBA order and the normalised floats; for a float
 *  format the floats. */
export function pixelText(img: DrawImage, x: number, y: number): string {
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return "outside the image";
  const f = floats(img, x, y);
  if (f) return `${img.format} ${f.length === 1 ? `R = ${num(f[0])}` : `(${f.map(num).join(", ")})`}`;
  const at = (y * img.width + x) * 4;
  const bytes = Array.from(img.rgba.subarray(at, at + 4));
  return `${img.format} RGBA bytes ${bytes.join(" ")} = (${bytes.map((b) => (b / 255).toFixed(3)).join(", ")})`;
}

function num(v: number): string {
  return Number.isFinite(v) ? String(Math.round(v * 1e6) / 1e6) : String(v);
}

/** The pixel of `canvas` under a pointer at client (cx, cy). */
export function pixelAt(canvas: HTMLCanvasElement, cx: number, cy: number): [number, number] | null {
  const r = canvas.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return null;
  const x = Math.floor(((cx - r.left) / r.width) * canvas.width);
  const y = Math.floor(((cy - r.top) / r.height) * canvas.height);
  return x >= 0 && y >= 0 && x < canvas.width && y < canvas.height ? [x, y] : null;
}
