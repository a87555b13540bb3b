/**
 * The OpenAPI document under the OWASP API security ruleset (Spectral's engine, the ruleset
 * as published): every finding is either fixed in the document or one of the answers that
 * docs/api.md gives, and each answer still stands for a finding (so a fixed one leaves the
 * list). Also what the ruleset does not check: the error codes are the gateway's own, and
 * each GET action has its HEAD.
 */
import { readFileSync } from 'node:fs';
import { Spectral } from '@stoplight/spectral-core';
import owasp from '@stoplight/spectral-owasp-ruleset';
import * as assert from 'uvu/assert';
import { PUBLIC_ERROR_CODES } from '../../gateway/errors.js';
import { OPENAPI_JSON } from '../../gateway/openapi.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway: the OpenAPI document under the OWASP ruleset');
const document = JSON.parse(OPENAPI_JSON) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: unknown }> }>>;
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
};

/** Where a finding is: a path in the document, dot-joined. */
type Where = (path: string) => boolean;

/** Part of an answer: a response, a response header, or a component schema that is not a request body. */
const inAnswer: Where = (path) =>
  /\.responses\.\d{3}\./.test(path) || /^components\.schemas\.(?!\w+Request\.)/.test(path);
const publicPaths: Where = (path) => /^paths\.\/(healthz|openapi\.json)\./.test(path);
/** An answer to HEAD, which never has a body. */
const headAnswer: Where = (path) => /\.head\.responses\.\d{3}$/.test(path);
const field =
  (...names: string[]): Where =>
  (path) =>
    names.some((name) => path.endsWith(`.properties.${name}`));

/** The findings docs/api.md answers ("The OpenAPI document and the OWASP API ruleset"). */
const ANSWERS: { rule: string; where: Where }[] = [
  { rule: 'owasp:api4:2023-string-limit', where: inAnswer },
  { rule: 'owasp:api4:2023-string-restricted', where: inAnswer },
  { rule: 'owasp:api4:2023-array-limit', where: inAnswer },
  { rule: 'owasp:api4:2023-string-limit', where: field('package_code') },
  { rule: 'owasp:api4:2023-string-restricted', where: field('package_code', 'message') },
  { rule: 'owasp:api4:2023-integer-limit', where: (path) => path.endsWith('.headers.Retry-After.schema') },
  { rule: 'owasp:api4:2023-rate-limit', where: (path) => /\.responses\.(400|408|417|431)\.headers$/.test(path) },
  { rule: 'owasp:api4:2023-rate-limit', where: publicPaths },
  { rule: 'owasp:api8:2023-define-cors-origin', where: (path) => /\.responses\.\d{3}(\.headers)?$/.test(path) },
  { rule: 'owasp:api2:2023-read-restricted', where: publicPaths },
  { rule: 'owasp:api4:2023-rate-limit-responses-429', where: publicPaths },
  { rule: 'owasp:api8:2023-define-error-responses-401', where: publicPaths },
  { rule: 'owasp:api8:2023-define-error-responses-500', where: publicPaths },
  { rule: 'owasp:api8:2023-define-error-validation', where: publicPaths },
  { rule: 'owasp:api4:2023-rate-limit-responses-429', where: headAnswer },
  { rule: 'owasp:api8:2023-define-error-responses-401', where: headAnswer },
  { rule: 'owasp:api8:2023-define-error-responses-500', where: headAnswer },
];

test('every finding of the OWASP ruleset is fixed or answered in docs/api.md, and every answer is used', async () => {
  const spectral = new Spectral();
  spectral.setRuleset(owasp as never);
  const findings = await spectral.run(JSON.stringify(document, null, 1));
  assert.ok(findings.length > 0, 'the ruleset ran');
  const used = new Set<number>();
  const unanswered: string[] = [];
  for (const finding of findings) {
    const path = finding.path.join('.');
    const answer = ANSWERS.findIndex((a) => a.rule === finding.code && a.where(path));
    if (answer === -1) unanswered.push(`${finding.code} at ${path}: ${finding.message}`);
    else used.add(answer);
  }
  assert.equal(
    [...new Set(unanswered.map((u) => u.replace(/paths\.\/\w+\./, 'paths./*.')))],
    [],
    `${unanswered.length} findings are neither fixed nor answered`,
  );
  const unused = ANSWERS.filter((_, i) => !used.has(i)).map((a) => a.rule);
  assert.equal(unused, [], 'an answer that no finding needs any more is taken out (here and in docs/api.md)');
  const docs = readFileSync('docs/api.md', 'utf8');
  for (const { rule } of ANSWERS) assert.ok(docs.includes(`\`${rule}\``), `docs/api.md answers ${rule}`);
});

test("the error code is an enum of the gateway's public codes", () => {
  const codes = document.components.schemas['Error']!.properties['code']!.enum;
  assert.equal(codes, [...PUBLIC_ERROR_CODES]);
  for (const code of ['INSUFFICIENT_BALANCE', 'MISSING_API_KEY', 'PROVIDER_FAILED', 'CORE_UNAVAILABLE'])
    assert.ok(codes!.includes(code), code);
  // Row keys that are not public codes: they answer under another code.
  for (const key of ['UNAUTHENTICATED', 'PERMISSION_DENIED', 'ROUTE_NOT_FOUND', 'AUTH_RATE_LIMITED', 'OUTCOME_UNKNOWN'])
    assert.not.ok(codes!.includes(key), key);
});

test('every GET operation has a HEAD with the same statuses and no body', () => {
  for (const [path, item] of Object.entries(document.paths)) {
    if (item['get'] === undefined) continue;
    const head = item['head'];
    assert.ok(head, `HEAD ${path}`);
    assert.equal(Object.keys(head!.responses), Object.keys(item['get'].responses), path);
    assert.ok(
      Object.values(head!.responses).every((answer) => answer.content === undefined),
      `HEAD ${path} answers no body`,
    );
    assert.is.not(head!.operationId, item['get'].operationId);
  }
});

test.run();
