/**
 * `/compat/openapi.json` against the real gateway: it is OpenAPI 3.1 whose schemas compile,
 * every path it documents is routed by its dialect with the methods it names, every path the
 * dialects route is documented, and every `/api/...` path docs/compat.md names is in it.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as assert from 'uvu/assert';
import { adex } from '../../../gateway/compat/adex/index.js';
import type { Dialect } from '../../../gateway/compat/dialect.js';
import { msorg } from '../../../gateway/compat/msorg/index.js';
import { PURCHASE_PRODUCTS } from '../../../gateway/compat/msorg/purchases.js';
import { vtpass } from '../../../gateway/compat/vtpass/index.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

const test = suite('compat openapi');
let core: TestCore;
let gateway: TestGateway;
let document: any;

const DIALECTS: Record<string, Dialect> = { msorg, adex, vtpass };

/**
 * The paths each dialect routes, after `api/` (`{id}` a variable segment): MSORG's purchase
 * paths and their records, its reads and the products not sold yet; Adex's login, purchases,
 * checks and the card paths not sold yet; VTpass's five.
 */
const ROUTED: Record<string, string[]> = {
  msorg: [
    ...Object.keys(PURCHASE_PRODUCTS).flatMap((p) => [p, `${p}/{id}`]),
    'user',
    'validatemeter',
    'validateiuc',
    'epin',
    'rechargepin',
  ],
  adex: ['user', 'data', 'topup', 'bill', 'cable', 'bill/bill-validation', 'cable/cable-validation', 'recharge_card'],
  vtpass: ['pay', 'requery', 'service-variations', 'merchant-verify', 'balance'],
};

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
  const reply = await gateway.request({ path: '/compat/openapi.json' });
  assert.is(reply.status, 200, reply.text);
  document = JSON.parse(reply.text);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/** A documented path as its dialect and segments after `api/`. */
function parse(path: string): { dialect: string; segments: string[] } {
  const match = /^\/compat\/([a-z]+)\/api\/(.*)$/.exec(path);
  assert.ok(match, `${path} is a compatible endpoint's full path`);
  return { dialect: match![1]!, segments: match![2]!.split('/').filter((s) => s !== '') };
}

test('it is OpenAPI 3.1, its schemas compile, and every operation names a known security scheme', () => {
  assert.is(document.openapi, '3.1.0');
  const ajv = new Ajv2020({ strict: false });
  const schemes = Object.keys(document.components.securitySchemes);
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      assert.ok(['get', 'post'].includes(method), `${path} ${method}`);
      assert.type(op.summary, 'string');
      for (const requirement of op.security) {
        for (const name of Object.keys(requirement)) assert.ok(schemes.includes(name), `${path}: scheme ${name}`);
      }
      const bodies = Object.values<any>(op.requestBody?.content ?? {});
      const answers = Object.values<any>(op.responses).flatMap((r: any) => Object.values<any>(r.content ?? {}));
      for (const media of [...bodies, ...answers]) {
        const validate = ajv.compile(media.schema);
        if (media.example !== undefined) assert.ok(validate(media.example), `${path} ${method}: its example fits`);
      }
    }
  }
});

test('every documented path is routed by its dialect with the documented methods', () => {
  for (const [path, item] of Object.entries<any>(document.paths)) {
    const { dialect, segments } = parse(path);
    const route = DIALECTS[dialect]?.route(segments.map((s) => (s === '{id}' ? '202612020815A7K2M9QX3B' : s)));
    assert.ok(route, `${path} is routed`);
    for (const method of Object.keys(item)) {
      assert.ok(route!.methods.includes(method.toUpperCase() as 'GET' | 'POST'), `${path} takes ${method}`);
    }
  }
});

test('every path the dialects route is documented, and every /api/ path docs/compat.md names', () => {
  const documented = new Set(
    Object.keys(document.paths).map((path) => {
      const { dialect, segments } = parse(path);
      return `${dialect}:${segments.join('/')}`;
    }),
  );
  for (const [dialect, paths] of Object.entries(ROUTED)) {
    for (const path of paths) {
      assert.ok(
        DIALECTS[dialect]!.route(path.split('/').map((s) => (s === '{id}' ? 'X1' : s))),
        `${dialect} routes ${path}`,
      );
      assert.ok(documented.has(`${dialect}:${path}`), `${dialect} ${path} is documented`);
    }
  }
  const docs = readFileSync(new URL('../../../docs/compat.md', import.meta.url), 'utf8');
  const sections = docs.split(/^## /m);
  for (const [dialect, heading] of [
    ['msorg', 'MSORG paths'],
    ['adex', 'Adex paths'],
    ['vtpass', 'VTpass'],
  ] as const) {
    const section = sections.find((s) => s.startsWith(heading));
    assert.ok(section, `docs/compat.md has the section ${heading}`);
    for (const match of section!.matchAll(/`(?:GET|POST) \/api\/([a-z_-]+)/g)) {
      assert.ok(documented.has(`${dialect}:${match[1]}`), `${dialect} ${match[1]} from docs/compat.md is documented`);
    }
  }
});

test.run();
