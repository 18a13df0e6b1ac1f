import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PromptFile, PromptFileError, Prompts } from "../../../src/toolkit/index.js";

const render = (template: string, variables: Record<string, unknown> = {}) =>
  new Prompts({ template }).system(variables);

function refusal(action: () => unknown): PromptFileError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(PromptFileError);
    return error as PromptFileError;
  }
  throw new Error("expected a PromptFileError, but nothing was thrown");
}

// The probe of the security review: it printed `uid=0(root)` on the worker.
const PROBE = `{{ range.constructor("return process.getBuiltinModule('child_process').execSync('id').toString()")() }}`;

describe("a prompt template is data, not code", () => {
  it("refuses the range.constructor probe when the file is loaded, naming the file and the line", () => {
    const yaml = `system: |\n  You help.\n  ${PROBE}\n`;
    const error = refusal(() => PromptFile.parse(yaml, "evil.yaml"));
    expect(error.message).toMatch(/the system template in evil\.yaml, line 2: the template reads "constructor"/);
    expect(error.message).toContain("a prompt file is data, not code");
  });

  it("refuses the probe in soev-prompts, which runs nothing", () => {
    const folder = mkdtempSync(join(tmpdir(), "soev-sandbox-"));
    const file = join(folder, "evil.yaml");
    writeFileSync(file, `system: '${PROBE.replace(/'/g, "''")}'\n`);
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/toolkit/prompts/cli.ts", file], {
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stdout).not.toContain("uid=");
    expect(result.stderr).toContain('reads "constructor"');
  });

  it.each([
    ["a prototype", "{{ citation.__proto__ }}", "__proto__"],
    ["prototype", "{{ range.prototype }}", "prototype"],
    ["a subscript", '{{ citation["constructor"] }}', "constructor"],
    ["an attribute argument", '{{ [citation] | map(attribute="constructor.name") | join }}', "constructor"],
    ["a block of a layer", null, "constructor"],
  ])("refuses %s at load", (_what, template, name) => {
    const yaml =
      template === null
        ? "system: '{% block role %}Hi{% endblock %}'\nmodels:\n  - endpoints: [m]\n    blocks:\n      role: '{{ cycler.constructor }}'\n"
        : `system: '${template.replace(/'/g, "''")}'\n`;
    expect(refusal(() => PromptFile.parse(yaml)).message).toContain(`reads "${name}"`);
  });

  it("refuses a path built at render time, and members of functions", () => {
    expect(() => render('{{ citation["constr" ~ "uctor"] }}', { citation: "x" })).toThrow(
      /read "constructor", which no template may read/,
    );
    expect(() => render("{{ range[name] }}", { name: "call" })).toThrow(/of a function/);
    // A name of Object.prototype is a name like any other: the interpreter's scope is a Map, so it is undefined.
    expect(() => render("{{ valueOf() }}")).toThrow(/"valueOf" is a none, not a function/);
    // Prototype methods of data are no members: only own properties, Python's methods and items.
    expect(
      render("{% if data.hasOwnProperty is defined %}yes{% else %}no{% endif %}|{{ data.x }}", { data: { x: 1 } }),
    ).toBe("no|1");
  });

  it("renders within a budget: a loop of millions of steps fails at once", () => {
    const loop = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}";
    expect(() => render(loop)).toThrow(
      /failed to render: TemplateSandboxError: the render went over its budget of \d+ (steps|ms)/,
    );
    expect(() => render("{{ range(30000000) | length }}")).toThrow(/range\(\) would make 30000000 items/);
    expect(() => render("{% set s = 'x' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}")).toThrow(
      /over its budget of \d+ characters/,
    );
    // A small loop is well within it.
    expect(render("{% for i in range(3) %}{{ i }}{% endfor %}")).toBe("012");
  });
});

// Expected outputs follow Jinja's documentation (jinja.palletsprojects.com/en/stable/templates/#builtin-filters)
// and Python's json.dumps, textwrap and % formatting, which those filters call.
describe("Jinja's filters and Python's methods in a prompt file", () => {
  const file = PromptFile.parse(
    [
      "system: |",
      "  {{ profile | tojson }}",
      "  {{ users | map(attribute='name') | join(', ') }} / {{ titles | map('upper') | join(',') }} / {{ users | map(attribute='age', default=0) | join(',') }}",
      "  {{ ['a', 'A', 'b'] | unique | join(',') }} {{ users | unique(attribute='team') | map(attribute='name') | join(',') }}",
      "  {{ [3, 1, 2] | min }} {{ ['B', 'a', 'c'] | max }} {{ ['B', 'a'] | min(case_sensitive=true) }} {{ users | max(attribute='age') | tojson }}",
      "  {% for key, value in profile | items %}{{ key }}={{ value | tojson }};{% endfor %}",
      "  {{ '%s, %s!' | format('Hello', 'World') }} {{ '%05.1f%%|%-4d|%x|%r' | format(3.14159, 7, 255, 'a') }} {{ '%(n)s=%(v)+d' | format(n='x', v=5) }}",
      "  {{ 'The quick brown fox jumps over the lazy dog' | wordwrap(10) }}",
      "  {{ 'a well-known fact' | wordwrap(7, wrapstring='|') }}",
      "  {{ name.upper() }} {{ name.title() }} {{ name.strip('!') }} {{ ' a  b '.split() | join('+') }} {{ name.replace('o', '0', 1) }} {% if name.startswith('ho') %}yes{% endif %}",
      "  {% for key, value in profile.items() %}{{ key }}{% endfor %} {{ profile.get('city', 'nowhere') }} {{ profile.get('zip', 'none') }}",
    ].join("\n"),
    "filters.yaml",
  );
  const variables = {
    profile: { name: "Zoë", city: "<Delft>", langs: ["nl", "en"] },
    users: [
      { name: "ann", age: 31, team: "x" },
      { name: "bob", team: "X" },
      { name: "cy", age: 40, team: "y" },
    ],
    titles: ["a", "b"],
    name: "hoho world!",
  };

  it("loads: each filter is known", () => {
    expect(() => file.checkVariables(Object.keys(variables))).not.toThrow();
  });

  it("renders each as Jinja documents it", () => {
    const lines = file.forModel(null).system(variables).split("\n");
    // tojson: keys sorted, ", " and ": " separators, non-ASCII escaped, <, >, & and ' made HTML-safe.
    expect(lines[0]).toBe('{"city": "\\u003cDelft\\u003e", "langs": ["nl", "en"], "name": "Zo\\u00eb"}');
    expect(lines[1]).toBe("ann, bob, cy / A,B / 31,0,40");
    // unique is case-insensitive by default and keeps the first of each.
    expect(lines[2]).toBe("a,b ann,cy");
    expect(lines[3]).toBe('1 c B {"age": 40, "name": "cy", "team": "y"}');
    expect(lines[4]).toBe('name="Zo\\u00eb";city="\\u003cDelft\\u003e";langs=["nl", "en"];');
    expect(lines[5]).toBe("Hello, World! 003.1%|7   |ff|'a' x=+5");
    // textwrap: greedy lines of at most 10, whitespace dropped at the breaks.
    expect(lines.slice(6, 11)).toEqual(["The quick", "brown fox", "jumps over", "the lazy", "dog"]);
    // break_on_hyphens: "well-known" may break after its hyphen.
    expect(lines[11]).toBe("a well-|known|fact");
    expect(lines[12]).toBe("HOHO WORLD! Hoho World! hoho world a+b h0ho world! yes");
    expect(lines[13]).toBe("namecitylangs <Delft> none");
  });

  it("explains a JavaScript method called where Python's is meant", () => {
    expect(() => render("{{ name.toUpperCase() }}", { name: "a" })).toThrow(
      /"toUpperCase" is a JavaScript method; a template calls Python's str methods \(upper, lower/,
    );
  });
});

// Each call that ran until killed (or took seconds) on the compiled engine: refused by its stated size, not by time.
describe("a filter call bounds its work before it starts", () => {
  const long = (seed: string, doublings: number) =>
    `{% set s = "${seed}" %}{% for i in range(${doublings}) %}{% set s = s ~ s %}{% endfor %}`;

  it.each([
    ["center(3e8)", '{{ "a" | center(300000000) }}', /center\(\) would make a text of 300000000 characters/],
    ["indent(3e8)", '{{ "a\\nb" | indent(300000000) }}', /indent\(\) would make a text of 600000003 characters/],
    ["slice(1e8)", "{{ [1] | slice(100000000) | length }}", /slice\(\) would make 100000001 items/],
    [
      "batch with a fill of 1e9",
      '{{ [1] | batch(1000000000, "x") | length }}',
      /batch\(\) would make 1000000001 items/,
    ],
    ["batch of 131k characters", `${long("x", 17)}{{ s | batch(3) | length }}`, /batch\(\) would make 131072 items/],
    [
      "a format width of 1e9",
      '{{ "%1000000000s" | format("a") }}',
      /format\(\): the width of "%1000000000s" would make/,
    ],
    ["zfill(1e9)", "{{ citation.zfill(1000000000) }}", /zfill\(\) would make a text of 1000000000 characters/],
    [
      "replace of '' by a long text",
      `${long("xxxxxxxx", 12)}{{ s | replace("", s) | length }}`,
      /replace\(\) would make a text/,
    ],
    [
      "join of a long list",
      `${long("xxxxxxxx", 10)}{{ range(200) | map("string") | join(s) | length }}`,
      /join\(\) would make a text/,
    ],
  ])("refuses %s by its size", (_what, template, message) => {
    expect(() => render(template, { citation: "[1]" })).toThrow(message);
  });

  it("runs striptags, format and trim on 131k characters that backtracked, in steps linear in the length", () => {
    expect(render(`${long("<a ", 16)}{{ s | striptags | length }}`)).toBe("196607");
    expect(render(`${long("%(", 17)}{{ s | format(a=1) | length }}`)).toBe(String(2 ** 18));
    expect(render(`${long(" ", 17)}{{ (s ~ "x" ~ s) | trim }}`)).toBe("x");
  });

  it("takes no regular expression from the template: replace is literal, a regex literal is refused at load", () => {
    expect(render('{{ "a.b.c" | replace(".", "-") }}')).toBe("a-b-c");
    expect(() => PromptFile.parse('system: "{{ citation | replace(r/(a+)+$/, \\"b\\") }}"')).toThrow(
      /no regular expressions/,
    );
  });
});

// Issue 61: the load check must see set targets, or `{% set __proto__ %}` reaches a name no template may use.
describe("the load check of set targets", () => {
  it.each([
    ["{% set __proto__ = {'polluted': 1} %}{{ polluted }}", "__proto__"],
    ["{% set constructor = 1 %}{{ constructor }}", "constructor"],
    ["{% set x, prototype = 1 %}{{ x }}", "prototype"],
    ["{% set __class__ %}x{% endset %}", "__class__"],
  ])("refuses %s at load, naming the line", (template, name) => {
    const error = refusal(() => PromptFile.parse(`system: "You help.\\n${template}"`, "set.yaml"));
    expect(error.message).toContain(`the system template in set.yaml, line 2: the template reads "${name}"`);
  });
});

describe("striptags as nunjucks had it", () => {
  it("strips tags and comments, keeps a `<` without a `>`, squashes whitespace", () => {
    expect(render('{{ "<p class=x>Hi <b>there</b><!-- note --> a<b c <i>x</i>" | striptags }}')).toBe("Hi there ax");
    expect(render('{{ "a < b and <_x> <a_b> c" | striptags }}')).toBe("a < b and <_x> <a_b> c");
  });
});
