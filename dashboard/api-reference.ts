/**
 * The API reference's source: the very OpenAPI document the gateway serves at /openapi.json,
 * fetched by this server (never by the browser: no script and no other origin under the CSP),
 * kept for a few minutes, and read into what the reference pages show: each action of
 * `x-actions` with its parameters, its request and answer schemas, and an example of each
 * built from those schemas (their `examples`, `const`s and enums first), so the reference
 * cannot say anything the document does not.
 */

/** A JSON Schema object as the document writes it. */
type Schema = { readonly [key: string]: unknown };

/** How long a fetched document is used before it is fetched again. */
const DOCUMENT_TTL_MS = 5 * 60_000;
/** A fetch that takes longer leaves the page to say the reference cannot be read now. */
const FETCH_TIMEOUT_MS = 5_000;
/** The document is about 60 KB; anything far larger is not it. */
const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
/**
 * Nested schemas deeper than this are shown as `{}` in examples (the document has no cycles, but a bound costs
 * nothing).
 */
const MAX_EXAMPLE_DEPTH = 8;

/** One query or header parameter of an action. */
interface ReferenceParameter {
  name: string;
  in: string;
  description: string;
  required: boolean;
  /** A value to show in an example request (its schema's example, const or first enum value). */
  example: unknown;
}

/** One field of a request or answer object. */
export interface ReferenceField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** One action, as the reference shows it. */
export interface ReferenceAction {
  name: string;
  method: 'GET' | 'POST';
  summary: string;
  parameters: ReferenceParameter[];
  requestFields: ReferenceField[];
  /** The example body of a POST, undefined for a GET. */
  requestExample: unknown;
  /** Each success status (200, 202) with its schema's fields and an example answer. */
  answers: Array<{ status: string; schemaName: string; fields: ReferenceField[]; example: unknown }>;
}

/** What the reference pages show, read from one document. */
export interface ApiReference {
  title: string;
  description: string;
  actions: ReferenceAction[];
  /** Every error status the API answers, with its description. */
  errors: Array<{ status: string; description: string }>;
  /** The Error schema's example. */
  errorExample: unknown;
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schemas of `document.components.schemas`, and `$ref` resolved through them. */
function resolver(document: Schema): (schema: unknown) => Schema {
  const components = isObject(document['components']) ? document['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  return function resolve(schema) {
    let current: unknown = schema;
    // A reference to a reference is followed a few times at most.
    for (let hops = 0; hops < 4 && isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      const name = (current['$ref'] as string).replace('#/components/schemas/', '');
      current = schemas[name];
    }
    return isObject(current) ? current : {};
  };
}

/** A plain example value of a string schema without one of its own, by its format. */
function stringExample(schema: Schema): string {
  if (schema['format'] === 'date-time') return '2026-11-21T06:28:00.000Z';
  if (schema['format'] === 'date') return '2026-11-21';
  if (schema['format'] === 'uri') return 'https://example.com';
  return 'string';
}

/** A number schema's example: its minimum when it has a useful one, else a round amount. */
function numberExample(schema: Schema): number {
  const minimum = schema['minimum'];
  if (typeof minimum === 'number' && minimum > 0) return minimum;
  return schema['type'] === 'integer' ? 1 : 1000;
}

/**
 * An example value of `schema`: its first `examples` entry, its `const` or `default`, its first
 * non-null enum value, the first of its `oneOf`/`anyOf`, or one built from its type (an object
 * with every property, an array of one item).
 */
function exampleOf(document: Schema, schema: unknown, depth = 0): unknown {
  const resolve = resolver(document);
  const s = resolve(schema);
  if (depth > MAX_EXAMPLE_DEPTH) return {};
  if (Array.isArray(s['examples']) && s['examples'].length > 0) return s['examples'][0];
  if ('const' in s) return s['const'];
  if ('default' in s) return s['default'];
  if (Array.isArray(s['enum'])) return s['enum'].find((value) => value !== null) ?? null;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0) return exampleOf(document, branches[0], depth + 1);
  }
  const type = Array.isArray(s['type']) ? (s['type'].find((t) => t !== 'null') as string | undefined) : s['type'];
  switch (type) {
    case 'object': {
      const properties = isObject(s['properties']) ? s['properties'] : {};
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, exampleOf(document, property, depth + 1)]),
      );
    }
    case 'array':
      return [exampleOf(document, s['items'], depth + 1)];
    case 'string':
      return stringExample(s);
    case 'number':
    case 'integer':
      return numberExample(s);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** A schema's type in a word or two: `string`, `number or null`, `one of: mtn, glo`, `Transaction`. */
function typeOf(document: Schema, schema: unknown): string {
  if (isObject(schema) && typeof schema['$ref'] === 'string') return schema['$ref'].split('/').at(-1) ?? 'object';
  const s = resolver(document)(schema);
  if ('const' in s) return JSON.stringify(s['const']);
  if (Array.isArray(s['enum'])) return `one of: ${s['enum'].map((value) => JSON.stringify(value)).join(', ')}`;
  const branches = s['oneOf'] ?? s['anyOf'];
  if (Array.isArray(branches)) return [...new Set(branches.map((branch) => typeOf(document, branch)))].join(' or ');
  if (Array.isArray(s['type'])) return s['type'].join(' or ');
  if (s['type'] === 'array') return `array of ${typeOf(document, s['items'])}`;
  return typeof s['type'] === 'string' ? s['type'] : 'any';
}

/** An object schema's fields, in the document's order. */
function fieldsOf(document: Schema, schema: unknown): ReferenceField[] {
  const s = resolver(document)(schema);
  const properties = isObject(s['properties']) ? s['properties'] : {};
  const required = new Set(Array.isArray(s['required']) ? s['required'] : []);
  return Object.entries(properties).map(([name, property]) => {
    const resolved = resolver(document)(property);
    const description =
      isObject(property) && typeof property['description'] === 'string'
        ? property['description']
        : resolved['description'];
    return {
      name,
      type: typeOf(document, property),
      required: required.has(name),
      description: typeof description === 'string' ? description : '',
    };
  });
}

/** The example the operation gives for a media type (`content.application/json.example`), if any. */
function givenExample(holder: unknown): unknown {
  if (!isObject(holder) || !isObject(holder['content'])) return undefined;
  const json = holder['content']['application/json'];
  return isObject(json) ? json['example'] : undefined;
}

/** The action's own operation (`/{action}`), where its parameters and answers are its own. */
function operationOf(document: Schema, name: string, method: 'GET' | 'POST'): Schema {
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const path = paths[`/${name}`];
  const operation = isObject(path) ? path[method.toLowerCase()] : undefined;
  return isObject(operation) ? operation : {};
}

function parametersOf(document: Schema, operation: Schema): ReferenceParameter[] {
  const list = Array.isArray(operation['parameters']) ? operation['parameters'] : [];
  return list.filter(isObject).map((p) => ({
    name: String(p['name'] ?? ''),
    in: String(p['in'] ?? ''),
    description: typeof p['description'] === 'string' ? p['description'] : '',
    required: p['required'] === true,
    example: exampleOf(document, p['schema']),
  }));
}

/** The error statuses of the shared operation at `/`, with their descriptions. */
function errorsOf(document: Schema): ApiReference['errors'] {
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const root = isObject(paths['/']) ? paths['/'] : {};
  const post = isObject(root['post']) ? root['post'] : {};
  const responses = isObject(post['responses']) ? post['responses'] : {};
  return Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, response]) => ({
      status,
      description: isObject(response) && typeof response['description'] === 'string' ? response['description'] : '',
    }));
}

/** Reads the reference out of an OpenAPI document as the gateway serves it. */
function readReference(document: Schema): ApiReference {
  const info = isObject(document['info']) ? document['info'] : {};
  const actions = isObject(document['x-actions']) ? document['x-actions'] : {};
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    title: typeof info['title'] === 'string' ? info['title'] : 'API',
    description: typeof info['description'] === 'string' ? info['description'] : '',
    actions: Object.entries(actions)
      .filter((entry): entry is [string, Schema] => isObject(entry[1]))
      .map(([name, doc]) => {
        const method = doc['method'] === 'POST' ? 'POST' : 'GET';
        const request = typeof doc['request'] === 'string' ? doc['request'] : undefined;
        const responses = isObject(doc['responses']) ? doc['responses'] : {};
        const operation = operationOf(document, name, method);
        const answers = isObject(operation['responses']) ? operation['responses'] : {};
        return {
          name,
          method,
          summary: typeof doc['summary'] === 'string' ? doc['summary'] : '',
          parameters: parametersOf(document, operation).filter((p) => p.name !== 'action'),
          requestFields: request === undefined ? [] : fieldsOf(document, ref(request)),
          requestExample:
            request === undefined
              ? undefined
              : (givenExample(operation['requestBody']) ?? exampleOf(document, ref(request))),
          answers: Object.entries(responses)
            .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
            .map(([status, schemaName]) => ({
              status,
              schemaName,
              fields: fieldsOf(document, ref(schemaName)),
              example: givenExample(answers[status]) ?? exampleOf(document, ref(schemaName)),
            })),
        };
      }),
    errors: errorsOf(document),
    errorExample: exampleOf(document, ref('Error')),
  };
}

/** Reads the gateway's document, kept DOCUMENT_TTL_MS; one fetch at a time, whoever asks. */
export interface ReferenceSource {
  /** The reference, or undefined when the document cannot be read now (the page says so). */
  get(): Promise<ApiReference | undefined>;
}

/** Fetches from `documentUrl`, the gateway's /openapi.json. */
export function referenceSource(documentUrl: string, now: () => number = Date.now): ReferenceSource {
  let kept: { reference: ApiReference; at: number } | undefined;
  let inFlight: Promise<ApiReference | undefined> | undefined;
  async function load(): Promise<ApiReference | undefined> {
    try {
      const response = await fetch(documentUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      const length = Number(response.headers.get('content-length') ?? '0');
      if (!response.ok || length > MAX_DOCUMENT_BYTES) return kept?.reference;
      const text = await response.text();
      if (text.length > MAX_DOCUMENT_BYTES) return kept?.reference;
      const document: unknown = JSON.parse(text);
      if (!isObject(document) || !isObject(document['x-actions'])) return kept?.reference;
      kept = { reference: readReference(document), at: now() };
      return kept.reference;
    } catch {
      // Unreachable, slow or not JSON: the last good document if there is one, else none.
      return kept?.reference;
    }
  }
  return {
    async get() {
      if (kept !== undefined && now() - kept.at < DOCUMENT_TTL_MS) return kept.reference;
      inFlight ??= load().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
