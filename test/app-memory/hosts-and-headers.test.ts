// The app answers only its own host names (DNS rebinding), sends CSP, frame and nosniff headers on every
// answer, and `npm run app` refuses its well-known key off loopback.
import { describe, expect, it } from "vitest";
import { runSettings } from "../../src/app/run-settings.js";
import { memoryApp } from "../fixtures/app/memory-app.js";

const ALICE = { authorization: "Bearer alice-key" };

describe("the Host check", () => {
  it("answers the loopback names with any port, and refuses any other host with 421", async () => {
    const { app } = await memoryApp();
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "LOCALHOST", "127.0.0.1"]) {
      const response = await app.hono.request("/threads", { headers: { ...ALICE, host } });
      expect(response.status, host).toBe(200);
    }
    for (const host of [
      "rebind.attacker.example:3000",
      "attacker.example",
      "evil.example@127.0.0.1",
      "127.0.0.1.evil.example",
      "localhost/x",
      "",
    ]) {
      const response = await app.hono.request("/threads", { headers: { ...ALICE, host } });
      expect(response.status, host).toBe(421);
      expect(((await response.json()) as { detail: string }).detail).toMatch(
        /does not answer to the host .* add this name to the app's `hosts`/,
      );
    }
    // The playground and the OpenAPI document too: a rebound page reads nothing.
    expect((await app.hono.request("/", { headers: { host: "attacker.example" } })).status).toBe(421);
    expect((await app.hono.request("/openapi.json", { headers: { host: "attacker.example" } })).status).toBe(421);
    await app.close();
  });

  it("answers the names it is given, and any host with hosts: null", async () => {
    const named = (await memoryApp({ hosts: ["app.example.com"] })).app;
    expect((await named.hono.request("/threads", { headers: { ...ALICE, host: "app.example.com" } })).status).toBe(200);
    expect((await named.hono.request("/threads", { headers: { ...ALICE, host: "localhost" } })).status).toBe(421);
    const open = (await memoryApp({ hosts: null })).app;
    expect((await open.hono.request("/threads", { headers: { ...ALICE, host: "anything.example" } })).status).toBe(200);
    await expect(memoryApp({ hosts: [""] })).rejects.toThrow(/`hosts` must be a list of host names/);
  });
});

describe("the security headers", () => {
  it("are on the playground, its script, the API's answers and its refusals", async () => {
    const { app } = await memoryApp();
    for (const [path, headers] of [
      ["/", {}],
      ["/playground/client.js", {}],
      ["/playground/requests-panel.js", {}],
      ["/openapi.json", {}],
      ["/threads", ALICE],
      ["/threads", {}],
      ["/nowhere", {}],
    ] as const) {
      const response = await app.hono.request(path, { headers });
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    await app.close();
  });
});

describe("npm run app's settings", () => {
  it("takes dev-key on loopback only, and keys of one's own anywhere", () => {
    expect(runSettings({}).keys).toEqual(new Map([["dev-key", "dev"]]));
    expect(runSettings({ HOST: "::1" }).hostname).toBe("::1");
    for (const HOST of ["0.0.0.0", "192.168.1.20", "::"])
      expect(() => runSettings({ HOST }), HOST).toThrow(
        /refuses the well-known key "dev-key" on .*, which is not loopback/,
      );
    expect(() => runSettings({ HOST: "0.0.0.0", SOEV_API_KEYS: "dev-key=dev,x=y" })).toThrow(/well-known key/);
    const own = runSettings({
      HOST: "0.0.0.0",
      SOEV_API_KEYS: "k-7f3a=alice",
      SOEV_APP_HOSTS: "app.example.com, soev.lan",
    });
    expect(own.keys).toEqual(new Map([["k-7f3a", "alice"]]));
    expect(own.hosts).toEqual(["localhost", "127.0.0.1", "[::1]", "app.example.com", "soev.lan"]);
  });
});
