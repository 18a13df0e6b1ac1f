/// <reference lib="dom" />
/** The playground's one way to make page elements: text goes in as text nodes, never parsed as HTML. */

/** Make an element with attributes and children; a string child is a text node. */
export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) if (child !== null) element.append(child);
  return element;
}
