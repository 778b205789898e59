// DOM helpers of the page shell. Engine strings (messages, names,
// disassembly) are untrusted: they only ever go into textContent.

/** The element with this id (the page's HTML has them all). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e as T;
}

/** A new element with a class and text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A button with an id, its text and a title (the tooltip). */
export function button(id: string, text: string, title: string): HTMLButtonElement {
  const b = el("button", "", text);
  b.type = "button";
  b.id = id;
  b.title = title;
  return b;
}

/** Offer `data` as a file download named `name`. */
export function downloadText(name: string, type: string, data: string) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
