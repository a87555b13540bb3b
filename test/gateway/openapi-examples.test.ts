/**
 * The examples the OpenAPI document gives each action (gateway/openapi-examples.ts, shown by
 * the developer area's API reference) are answers and requests the schemas accept: every
 * action has its examples, and each one validates against the schema beside it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as assert from 'uvu/assert';
import { OPENAPI_JSON } from '../../gateway/openapi.js';
import { suite } from '../helpers/suite.js';

const test = suite('openapi: the example of every action');

const document = JSON.parse(OPENAPI_JSON);
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: 'openapi', components: document.components });

/** Validates one media type's example against its schema; says which action and part it is. */
function assertExampleValid(content: any, what: string): void {
  const media = content?.['application/json'];
  assert.ok(media?.example !== undefined, `${what} has an example`);
  const name = String(media.schema.$ref).split('/').at(-1);
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  assert.ok(validate, `${what}: the document has ${name}`);
  assert.ok(validate(media.example), `${what}'s example matches ${name}: ${ajv.errorsText(validate.errors)}`);
}

test('each action has an example answer for each success status, and a POST an example request, each valid', () => {
  const actions = Object.entries(document['x-actions']) as [string, any][];
  assert.ok(actions.length >= 12, 'every action of the API');
  for (const [name, doc] of actions) {
    const operation = document.paths[`/${name}`][doc.method.toLowerCase()];
    for (const status of Object.keys(doc.responses)) {
      assertExampleValid(operation.responses[status].content, `${name} ${status}`);
    }
    if (doc.method === 'POST') assertExampleValid(operation.requestBody.content, `${name} request`);
  }
});

test('a wrong example is caught: the check is not vacuous', () => {
  const validate = ajv.getSchema('openapi#/components/schemas/AirtimeResponse')!;
  assert.not.ok(validate({ status: 'success', reference: '202611260524NAY95BQSBK', charged: '97', balance: 9903 }));
});

test.run();
