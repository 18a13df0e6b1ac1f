/// <reference lib="dom" />
/**
 * A form for a question's answer, built from its JSON schema in the browser: an object's properties
 * become labelled fields (text, number, checkbox, a select for an enum), a bare string, number, boolean
 * or enum one field; what it cannot draw (arrays, nested objects, unions) is a JSON text area, and so is
 * the whole answer when the schema is none or not an object. Texts go in as text, never as HTML.
 */
import { make } from "./dom.js";

/** A JSON schema as the form reads it: the keywords it draws from, anything else ignored. */
type Schema = Record<string, unknown>;

/** One field of the form: its element, and how to read the value it holds. */
interface Field {
  /** The property it fills, or null for the whole answer. */
  name: string | null;
  element: HTMLElement;
  /** The value, or undefined for an optional field left empty. Throws a SyntaxError for JSON that does not parse. */
  read(): unknown;
  /** The control to mark and focus when the answer is refused there. */
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
}

/** A question's form fields: their elements, and the payload they hold. */
export interface SchemaForm {
  /** The fields' elements, to put in a form. */
  elements: HTMLElement[];
  /** The answer's payload as filled in. Throws an Error naming the field whose JSON does not parse. */
  payload(): unknown;
  /** Mark the field at `path` (a property name, "" for the whole answer) as refused, and focus it. */
  refuse(path: string): void;
}

/** Build the fields of an answer to `schema` (null for any JSON); `prefix` keeps the ids unique on the page. */
export function schemaForm(schema: unknown, prefix: string): SchemaForm {
  const fields = fieldsOf(isSchema(schema) ? schema : null, prefix);
  return {
    elements: fields.map((field) => field.element),
    payload: () => payloadOf(fields),
    refuse: (path) => {
      const name = path.split(".")[0] ?? "";
      const field = fields.find((each) => each.name === name) ?? fields.find((each) => each.name === null) ?? fields[0];
      field?.control.setAttribute("aria-invalid", "true");
      field?.control.focus();
    },
  };
}

function fieldsOf(schema: Schema | null, prefix: string): Field[] {
  if (schema !== null && typeOf(schema) === "object" && isSchema(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    return Object.entries(schema.properties).map(([name, property]) =>
      fieldOf(name, isSchema(property) ? property : {}, required.has(name), `${prefix}-${name}`),
    );
  }
  if (schema !== null && simple(schema)) return [fieldOf(null, schema, true, `${prefix}-answer`)];
  return [jsonField(null, schema, true, `${prefix}-answer`)];
}

/** A field for one value: a checkbox, a select, a number or a text input; else a JSON text area. */
function fieldOf(name: string | null, schema: Schema, required: boolean, id: string): Field {
  if (!simple(schema)) return jsonField(name, schema, required, id);
  const type = typeOf(schema);
  const nullable = Array.isArray(schema.type) && schema.type.includes("null");
  if (type === "boolean") {
    const box = control("input", id, { type: "checkbox" });
    box.checked = schema.default === true;
    return { name, control: box, element: labelled(name, schema, box, required, true), read: () => box.checked };
  }
  const choices = enumOf(schema);
  if (choices !== null) {
    const select = control("select", id, required ? { required: "" } : {});
    if (!required || schema.default === undefined) select.append(option("", required ? "Choose…" : "(none)"));
    for (const choice of choices) select.append(option(JSON.stringify(choice), String(choice)));
    if (schema.default !== undefined) select.value = JSON.stringify(schema.default);
    const read = () => (select.value === "" ? empty(required, nullable) : (JSON.parse(select.value) as unknown));
    return { name, control: select, element: labelled(name, schema, select, required), read };
  }
  const input = control("input", id, inputAttributes(schema, type, required));
  if (schema.default !== undefined) input.value = String(schema.default);
  const read = () => {
    if (input.value === "") return empty(required, nullable);
    return type === "number" || type === "integer" ? Number(input.value) : input.value;
  };
  return { name, control: input, element: labelled(name, schema, input, required), read };
}

/** The value of a field left empty: nothing for an optional one, null where null fits, else "". */
function empty(required: boolean, nullable: boolean): unknown {
  if (nullable) return null;
  return required ? "" : undefined;
}

function inputAttributes(schema: Schema, type: string | null, required: boolean): Record<string, string> {
  const attributes: Record<string, string> = required ? { required: "" } : {};
  if (type === "number" || type === "integer") {
    attributes.type = "number";
    attributes.step = type === "integer" ? "1" : "any";
    if (typeof schema.minimum === "number") attributes.min = String(schema.minimum);
    if (typeof schema.maximum === "number") attributes.max = String(schema.maximum);
    return attributes;
  }
  attributes.type = schema.format === "date" ? "date" : schema.format === "email" ? "email" : "text";
  if (typeof schema.minLength === "number") attributes.minlength = String(schema.minLength);
  if (typeof schema.maxLength === "number") attributes.maxlength = String(schema.maxLength);
  if (typeof schema.pattern === "string" && validPattern(schema.pattern)) attributes.pattern = schema.pattern;
  return attributes;
}

/** A JSON text area: for the whole answer of an unknown shape, or a property the form cannot draw. */
function jsonField(name: string | null, schema: Schema | null, required: boolean, id: string): Field {
  const area = control("textarea", id, { rows: "3", class: "json", spellcheck: "false" });
  const anyJson = schema === null;
  if (schema?.default !== undefined) area.value = JSON.stringify(schema.default, null, 2);
  const read = () => {
    const text = area.value.trim();
    if (text === "") return required ? (anyJson ? "" : undefined) : undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      // Any JSON fits no schema at all: text that is not JSON is sent as the string it is.
      if (anyJson) return area.value;
      throw new Error(`${name ?? "The answer"}: ${(error as Error).message}`);
    }
  };
  const hint = anyJson ? "JSON; text that is not JSON is sent as a string" : "JSON";
  return { name, control: area, element: labelled(name, schema ?? {}, area, required, false, hint), read };
}

function payloadOf(fields: readonly Field[]): unknown {
  if (fields.length === 1 && fields[0]!.name === null) return fields[0]!.read();
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    const value = field.read();
    if (value !== undefined) payload[field.name!] = value;
  }
  return payload;
}

/** A field's label (its title, else its name), a mark when required, its description as a hint. */
function labelled(
  name: string | null,
  schema: Schema,
  input: HTMLElement,
  required: boolean,
  inline = false,
  hint: string | null = null,
): HTMLElement {
  const title = typeof schema.title === "string" ? schema.title : (name ?? "Answer");
  const label = make(
    "label",
    { for: input.id },
    title,
    required && !inline ? make("span", { class: "hint" }, " (required)") : null,
  );
  const notes = [typeof schema.description === "string" ? schema.description : null, hint].filter(Boolean).join(" · ");
  const note = notes === "" ? null : make("small", { id: `${input.id}-hint`, class: "hint" }, notes);
  if (note) input.setAttribute("aria-describedby", note.id);
  if (inline) return make("div", { class: "field check", "data-field": name ?? "" }, input, label, note);
  return make("div", { class: "field", "data-field": name ?? "" }, label, input, note);
}

/** Whether the form draws the schema as one input: a string, number, integer or boolean, or an enum of them. */
function simple(schema: Schema): boolean {
  if (enumOf(schema) !== null) return true;
  const type = typeOf(schema);
  return type === "string" || type === "number" || type === "integer" || type === "boolean";
}

/** The schema's type; of a nullable type (`["string", "null"]`) the other one. */
function typeOf(schema: Schema): string | null {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) {
    const others = type.filter((each) => each !== "null");
    return others.length === 1 ? String(others[0]) : null;
  }
  return null;
}

/** The choices of an enum (or a `const`) of strings, numbers or booleans; null for any other schema. */
function enumOf(schema: Schema): (string | number | boolean)[] | null {
  const choices = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : null;
  if (choices === null || choices.length === 0) return null;
  const plain = choices.every((each) => ["string", "number", "boolean"].includes(typeof each));
  return plain ? (choices as (string | number | boolean)[]) : null;
}

/** Whether the browser takes the pattern as an input's (it compiles them with the `v` flag). */
function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, "v");
    return true;
  } catch {
    return false;
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function control<K extends "input" | "select" | "textarea">(
  tag: K,
  id: string,
  attributes: Record<string, string>,
): HTMLElementTagNameMap[K] {
  return make(tag, { id, ...attributes });
}

function option(value: string, text: string): HTMLOptionElement {
  return make("option", { value }, text);
}
