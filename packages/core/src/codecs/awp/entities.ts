/**
 * AWP `entities` (§8): named data models whose fields are AWP types. They are read in two passes, names first, so
 * that entities may reference each other in any order, and kept as type trees so that every reference can inline a
 * fresh copy of the entity's schema.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { setOwn } from '../../json/values.js';
import type { JsonObject, JsonSchema } from '../../model/agent.js';
import { childReader, pointerTo } from './pointers.js';
import { SECTION } from './rules.js';
import { TypeReader } from './type-reader.js';
import { type AwpType, awpTypeToSchema, type EntityScope } from './types.js';

export class EntityTable implements EntityScope {
  private readonly fields = new Map<string, ReadonlyArray<readonly [string, AwpType]>>();
  /** Entities being inlined right now, to stop at a recursive reference (a category whose parent is one). */
  private readonly expanding = new Set<string>();

  define(name: string, fields: ReadonlyArray<readonly [string, AwpType]>): void {
    this.fields.set(name, fields);
  }

  has(name: string): boolean {
    return this.fields.has(name);
  }

  names(): string[] {
    return [...this.fields.keys()];
  }

  inline(name: string): JsonObject {
    const fields = this.fields.get(name);
    // A reference inside the entity's own expansion stays a reference: the name, without the fields again.
    if (fields === undefined || this.expanding.has(name)) return { type: 'object', 'x-awp-entity': name };
    this.expanding.add(name);
    try {
      const properties: JsonObject = {};
      for (const [field, type] of fields) setOwn(properties, field, awpTypeToSchema(type, this));
      return { type: 'object', 'x-awp-entity': name, properties };
    } finally {
      this.expanding.delete(name);
    }
  }

  /** Every entity's schema, as `surface.entities` holds them. */
  schemas(): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    for (const name of this.fields.keys()) setOwn(out, name, this.inline(name));
    return out;
  }
}

/** Reads the `entities` object into a table, recording an issue for every malformed entity or field type. */
export function readEntities(entities: ObjectReader | undefined, issues: IssueCollector): EntityTable {
  const table = new EntityTable();
  if (entities === undefined) return table;
  const types = new TypeReader(issues, table);
  const pending: Array<{ where: () => string; type: AwpType }> = [];
  for (const name of Object.keys(entities.value)) {
    const entity = ObjectReader.of(
      entities.value[name],
      pointerTo(entities.pointer, name),
      issues,
      'awp.entity',
      `Entity "${name}"`,
      SECTION.entities,
    );
    const fields = entity && childReader(entity, 'fields', { required: true });
    const read: Array<readonly [string, AwpType]> = [];
    for (const field of fields === undefined ? [] : Object.keys(fields.value)) {
      const where = (): string => fields!.at(field);
      const text = fields!.value[field];
      if (typeof text !== 'string') {
        issues.error(
          where(),
          'awp.entity.field-type',
          `Field "${field}" of entity "${name}" must be an AWP type string such as "string" or "object[flight]".`,
          SECTION.entities,
        );
        continue;
      }
      const type = types.parse(text, where);
      if (type === undefined) continue;
      read.push([field, type]);
      pending.push({ where, type });
    }
    // Declared even when malformed, so that references to it are not also reported as unknown.
    table.define(name, read);
  }
  for (const { where, type } of pending) types.check(type, where);
  return table;
}
