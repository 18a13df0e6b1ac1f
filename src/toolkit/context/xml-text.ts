/** XML text for the layout: escaping, and names that are safe as tag and attribute names. */
import { ValueError } from "../../domain/errors.js";

const NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/** Escape a text so it never reads as a tag: &, < and >. */
export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escape an attribute value: &, <, > and both quotes. */
export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Refuse a configured tag or attribute name that is not a valid XML name. */
export function checkName(name: string, what: string): void {
  if (!NAME.test(name))
    throw new ValueError(
      `The ${what} "${name}" is not a valid XML name (a letter or "_", then letters, digits, "_", "." or "-").`,
    );
}

/** A properties key as an attribute name: characters an XML name cannot hold become "_". */
export function attributeName(key: string): string {
  const name = key.replace(/[^\p{L}\p{N}_.-]/gu, "_");
  return NAME.test(name) ? name : `_${name}`;
}

/** An attribute value as text: strings as they are, other JSON values as JSON; null and undefined as absent. */
export function attributeValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}
