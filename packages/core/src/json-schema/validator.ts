/**
 * JSON Schema support: checking that a document *is* a valid JSON Schema 2020-12 schema (the codecs' job), and
 * compiling schemas to validate instances (the client's and host's job). One Ajv instance, compiled once.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import addFormatsModule from 'ajv-formats';
import type { IssueCollector } from '../issues.js';
import { plainJsonText } from '../json/plain-text.js';
import { joinPointer } from '../json/pointer.js';
import type { JsonSchema, JsonValue } from '../model/agent.js';
import { AJV_CODE_OPTIONS } from './ajv-code.js';
import { createMetaFastPath, type MetaFastPath } from './meta-fast-path.js';
import { assertPatternBudget, unsupportedPatterns } from './pattern-check.js';
import { isKnownValidSchema, rememberValidSchema } from './valid-schema-cache.js';

// ajv-formats is CommonJS; depending on the loader its default export is the plugin or a namespace holding it.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);

export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';
const DRAFT_07_ID = 'http://json-schema.org/draft-07/schema#';

/** Annotation keywords Agentry writes into schemas; validators ignore them. */
export const ANNOTATION_KEYWORDS = ['x-awp-type', 'x-awp-entity'] as const;

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    // Real-world schemas carry vendor keywords and loose types; reject nothing a validator can ignore.
    strict: false,
    allErrors: true,
    validateFormats: true,
    // Schemas and instances are untrusted: patterns matched and errors gathered in linear time (ajv-code.ts).
    code: AJV_CODE_OPTIONS,
  });
  addFormats(ajv);
  ajv.addMetaSchema(draft07MetaSchema);
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}

let sharedAjv: Ajv2020 | undefined;
/** The process-wide Ajv instance (created on first use, so importing core stays cheap). */
export function getAjv(): Ajv2020 {
  sharedAjv ??= createAjv();
  return sharedAjv;
}

export interface SchemaCheckOptions {
  /** Spec section for issues, e.g. `WoA §4.2`. Passed through to the collector. */
  section?: string;
  /** Code prefix, e.g. `woa`. */
  codePrefix: string;
  /** When true, a `$schema` naming another dialect is an error (WoA requires 2020-12); otherwise a warning. */
  require202012?: boolean;
  /** What the schema is, for messages: `"inputs"`. */
  what: string;
}

/**
 * Records an issue for every way `schema` fails to be a JSON Schema 2020-12 document. Returns true when valid.
 * A valid schema whose pattern the linear-time engine cannot run (a lookahead, a backreference) gets a warning.
 */
export function checkSchemaDocument(
  schema: unknown,
  pointer: string,
  issues: IssueCollector,
  options: SchemaCheckOptions,
): boolean {
  const code = `${options.codePrefix}.schema.invalid`;
  if (typeof schema === 'boolean') return true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    issues.error(
      pointer,
      code,
      `${options.what} must be a JSON Schema (an object or a boolean).`,
      options.section,
    );
    return false;
  }
  const declared = (schema as Record<string, unknown>)['$schema'];
  if (declared !== undefined && typeof declared === 'string') {
    const dialect = declared.replace(/#$/, '');
    if (dialect !== JSON_SCHEMA_2020_12) {
      const known = dialect === DRAFT_07;
      const message = `${options.what} declares $schema "${declared}"; JSON Schema 2020-12 (${JSON_SCHEMA_2020_12}) is expected.`;
      if (options.require202012 || !known) {
        issues.error(
          joinPointer(pointer, '$schema'),
          `${options.codePrefix}.schema.dialect`,
          message,
          options.section,
        );
        return false;
      }
      issues.warning(
        joinPointer(pointer, '$schema'),
        `${options.codePrefix}.schema.dialect`,
        message,
        options.section,
      );
    }
  }
  const meta = getMetaValidators();
  const isDraft07 = declared !== undefined && String(declared).replace(/#$/, '') === DRAFT_07;
  const metaValidator = isDraft07 ? meta.draft07 : meta.draft202012;
  if (!isDraft07 && meta.fastPath(schema)) return true;
  // Validity is a function of the schema's data alone, so a schema seen valid before (same JSON text) still is.
  const text = plainJsonText(schema);
  if (text !== undefined && isKnownValidSchema(text)) return true;
  let valid: boolean;
  try {
    valid = metaValidator(schema) as boolean;
  } catch (error) {
    issues.error(
      pointer,
      code,
      `${options.what} cannot be read as a JSON Schema: ${errorText(error)}.`,
      options.section,
    );
    return false;
  }
  if (valid) {
    // Valid JSON Schema, but a pattern Agentry's linear-time engine cannot run means validators cannot use it.
    const patterns = unsupportedPatterns(schema);
    for (const problem of patterns)
      issues.warning(
        pointer + problem.pointer,
        `${options.codePrefix}.schema.pattern-unsupported`,
        `${options.what} cannot be used to check values: its ${problem.message}.`,
        options.section,
      );
    if (text !== undefined && patterns.length === 0) rememberValidSchema(text);
    return true;
  }
  const dialectName = isDraft07 ? 'draft-07' : '2020-12';
  for (const error of mostSpecificErrors(metaValidator.errors ?? [])) {
    issues.error(
      pointer + error.instancePath,
      code,
      `${options.what} is not a valid JSON Schema ${dialectName} document: ${describeAjvError(error, false)}.`,
      options.section,
    );
  }
  return false;
}

interface MetaValidators {
  draft07: ValidateFunction;
  draft202012: ValidateFunction;
  /** Answers "valid" for plain 2020-12 schemas without Ajv; see meta-fast-path.ts. */
  fastPath: MetaFastPath;
}
let metaValidators: MetaValidators | undefined;

/**
 * The compiled meta-schema validators. Calling them directly is several times faster than `ajv.validateSchema`,
 * which matters: a five-agent document has a dozen schemas to check.
 */
function getMetaValidators(): MetaValidators {
  if (metaValidators === undefined) {
    const ajv = getAjv();
    const compiled = (id: string): ValidateFunction => {
      const validate = ajv.getSchema(id);
      if (validate === undefined) throw new Error(`meta-schema ${id} is not loaded`);
      return validate;
    };
    metaValidators = {
      draft07: compiled(DRAFT_07_ID),
      draft202012: compiled(JSON_SCHEMA_2020_12),
      fastPath: createMetaFastPath(ajv),
    };
  }
  return metaValidators;
}

/** One failure of an instance against a schema. */
export interface InstanceError {
  /** JSON pointer into the instance. */
  pointer: string;
  /** What is wrong, where: the pointer, then the reason. */
  message: string;
  /** What is wrong, for a report that shows the pointer on its own. */
  reason: string;
  keyword: string;
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles (once per schema object) and returns a function validating instances against `schema`. */
export function compileSchema(schema: JsonSchema): (instance: unknown) => InstanceError[] {
  let validate: ValidateFunction | undefined;
  if (typeof schema === 'object') validate = compiled.get(schema);
  if (validate === undefined) {
    // A stranger's schema: its patterns are compiled only when their total length is bounded.
    assertPatternBudget(schema);
    validate = getAjv().compile(schema);
    if (typeof schema === 'object') compiled.set(schema, validate);
  }
  const fn = validate;
  return (instance) => {
    if (fn(instance)) return [];
    return (fn.errors ?? []).map((error) => ({
      pointer: error.instancePath,
      keyword: error.keyword,
      message: describeAjvError(error),
      reason: describeAjvError(error, false),
    }));
  };
}

/** Validates `instance` against `schema`; an empty array means valid. */
export function validateInstance(schema: JsonSchema, instance: JsonValue | undefined): InstanceError[] {
  return compileSchema(schema)(instance);
}

/**
 * Ajv reports one failure of a union (`type: "strin"`) as several errors at the same place: the enum it missed, the
 * array form it is not, and the anyOf that failed. Keep one per place, preferring the one that says what is allowed.
 */
function mostSpecificErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const rank = (error: ErrorObject): number =>
    error.keyword === 'enum' ? 0 : error.keyword === 'anyOf' || error.keyword === 'oneOf' ? 2 : 1;
  const best = new Map<string, ErrorObject>();
  for (const error of errors) {
    const current = best.get(error.instancePath);
    if (current === undefined || rank(error) < rank(current)) best.set(error.instancePath, error);
  }
  return [...best.values()];
}

/** Ajv's error in words; `withPath` prefixes the instance path (leave it out when a pointer already says where). */
function describeAjvError(error: ErrorObject, withPath = true): string {
  const where = !withPath || error.instancePath === '' ? '' : `${error.instancePath}: `;
  if (error.keyword === 'additionalProperties') {
    return `${where}unexpected property "${String(error.params['additionalProperty'])}"`;
  }
  if (error.keyword === 'required') {
    return `${where}missing required property "${String(error.params['missingProperty'])}"`;
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params['allowedValues'] as unknown[] | undefined) ?? [];
    return `${where}must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return `${where}${error.message ?? error.keyword}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
