// The Run panel's pure parts (no DOM): a reflected type in words, the
// default input of a binding, a buffer spec completed with the runtime
// array's length, and a typed value flattened into table rows.
import type { Leaf, ReflectedResource, ShownValue, TypeNode } from "../api";
import type { ValueView } from "../state";

/** Elements of a runtime array when the user gave no length. */
export const DEFAULT_LENGTH = 64;

/** A type in WGSL-like words: `u32`, `vec4<f32>`, `array<u32, 4>`, `Buf`. */
export function typeName(t: TypeNode | undefined): string {
  if (!t) return "?";
  switch (t.kind) {
    case "bool":
      return "bool";
    case "int":
      return `${t.signed ? "i" : "u"}${t.width ?? 32}`;
    case "float":
      return `f${t.width ?? 32}`;
    case "vector":
      return `vec${t.count ?? "?"}<${typeName(t.element)}>`;
    case "matrix":
      return `mat${t.columns ?? "?"}x${t.element?.count ?? "?"}<${typeName(t.element?.element)}>`;
    case "array":
      return `array<${typeName(t.element)}, ${t.length ?? "?"}>`;
    case "runtimeArray":
      return `array<${typeName(t.element)}>`;
    case "struct": {
      const inner = (t.members ?? []).map((m) => `${m.name ?? "_"}: ${typeName(m.type)}`).join(", ");
      return t.name ? `${t.name} { ${inner} }` : `struct { ${inner} }`;
    }
    default:
      return t.name ?? t.kind;
  }
}

/** The key of a binding in a RunRequest's `buffers`. */
export function keyOf(r: ReflectedResource): string {
  return r.kind === "pushConstant" ? "push" : `${r.set}.${r.binding}`;
}

/** The resources the panel offers inputs for: the bound buffers (as the
 *  engine binds them, web/src/run.rs `bound`) and the push constants. */
export function inputsOf(resources: ReflectedResource[]): ReflectedResource[] {
  const buffers = resources
    .filter((r) => (r.kind === "storageBuffer" || r.kind === "uniformBuffer") && !r.descriptorArray && r.set !== undefined && r.binding !== undefined)
    .sort((a, b) => (a.set ?? 0) - (b.set ?? 0) || (a.binding ?? 0) - (b.binding ?? 0));
  return [...buffers, ...resources.filter((r) => r.kind === "pushConstant")];
}

/** The default input of the `index`th buffer: the first counts up
 *  (0, 1, 2, ...), the others start as zeros; push constants are zeros. */
export function defaultInput(r: ReflectedResource, index: number): string {
  return r.kind !== "pushConstant" && index === 0 ? "seq:0,1" : "zeros";
}

/** A spec with the runtime array's element count `n` added where the spec
 *  has none (`zeros`, `seq:A,B`, `random:S`); any other spec is as given. */
export function withLength(spec: string, n: number): string {
  const s = spec.trim();
  if (/^zeros$/i.test(s)) return `zeros:${n}`;
  if (/^seq:[^,]*,[^,]*$/i.test(s)) return `${s},${n}`;
  if (/^random:[^,]*$/i.test(s)) return `${s},${n}`;
  return spec;
}

/** The byte size in words: `16`, or `0 + N × 4` for a runtime array. */
export function sizeText(r: ReflectedResource): string {
  if (r.runtimeArray) return `${r.runtimeArray.fixedSize} + N × ${r.runtimeArray.stride ?? "?"}`;
  return r.size === undefined ? "?" : String(r.size);
}

/** One leaf of a typed value: its path (`data[3]`, `m.x[1]`) and its text. */
export interface TypedLeaf {
  path: string;
  text: string;
}

/** A typed value's leaves in order (struct members by name, array and
 *  vector elements by index). */
export function leaves(v: ShownValue, path = "", out: TypedLeaf[] = []): TypedLeaf[] {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, `${path}[${i}]`, out));
  else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) leaves(x, path ? `${path}.${k}` : k, out);
  else out.push({ path: path || "(value)", text: String(v) });
  return out;
}

/** A leaf's bytes as the view shows them: `hex` the little-endian value in
 *  hex (`0x3f800000`), `float` the bits read as a float of their width. */
export function viewText(bytes: ArrayLike<number>, b: Leaf | undefined, view: ValueView): string | undefined {
  if (view === "typed" || !b || b.offset + b.size > bytes.length) return undefined;
  let v = 0n;
  for (let i = b.size - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[b.offset + i]);
  if (view === "hex") return `0x${v.toString(16).padStart(b.size * 2, "0")}`;
  const dv = new DataView(new Uint8Array(Array.from({ length: b.size }, (_, i) => bytes[b.offset + i])).buffer);
  if (b.size === 4) return floatText(dv.getFloat32(0, true), true);
  if (b.size === 8) return floatText(dv.getFloat64(0, true), false);
  if (b.size === 2) return floatText(half(dv.getUint16(0, true)), false);
  return `0x${v.toString(16)}`;
}

/** Whether the leaf's bytes are the same in both buffers. */
export function sameBits(x: ArrayLike<number>, y: ArrayLike<number>, b: Leaf): boolean {
  for (let i = b.offset; i < b.offset + b.size; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** A float in its shortest text (an f32's: the fewest digits that read
 *  back to the same f32). */
function floatText(f: number, f32: boolean): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "inf" : "-inf";
  if (Object.is(f, -0)) return "-0";
  if (f32)
    for (let p = 1; p <= 9; p++) {
      const x = Number(f.toPrecision(p));
      if (Math.fround(x) === f) return String(x);
    }
  return String(f);
}

function half(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
