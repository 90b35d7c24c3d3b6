/** Reads AWP type strings found in a document, reporting what is wrong with each where it is written (§8). */
import type { IssueCollector } from '../../issues.js';
import type { JsonObject } from '../../model/agent.js';
import { SECTION } from './rules.js';
import { type AwpType, awpTypeToSchema, type EntityScope, parseAwpType, unknownEntities } from './types.js';

/** Where a type string is written: a JSON pointer, or a function making one, since it is needed only for issues. */
export type Where = string | (() => string);

function pointerOf(where: Where): string {
  return typeof where === 'string' ? where : where();
}

export class TypeReader {
  constructor(
    readonly issues: IssueCollector,
    readonly entities: EntityScope,
  ) {}

  /** The type tree of `text`, or undefined (after an error) when it is not an AWP type. */
  parse(text: string, where: Where): AwpType | undefined {
    const parsed = parseAwpType(text);
    if (!parsed.ok) {
      this.issues.error(
        pointerOf(where),
        'awp.type-system.invalid',
        `"${text}" is not an AWP type: ${parsed.message}. Use string, integer, float, boolean, ISO8601, url, ` +
          'enum[a, b], array[type], object[entity] or a custom type name.',
        SECTION.entities,
      );
      return undefined;
    }
    for (const note of parsed.notes) {
      this.issues.warning(
        pointerOf(where),
        'awp.type-system.spelling',
        `${note}; write the type as the spec's type table spells it.`,
        SECTION.entities,
      );
    }
    return parsed.type;
  }

  /** Checks the entities a type references exist (possible only once every entity name is known). */
  check(type: AwpType, where: Where): void {
    for (const name of unknownEntities(type, this.entities)) {
      this.issues.error(
        pointerOf(where),
        'awp.type-system.unknown-entity',
        `object[${name}] references an entity "${name}" that is not declared; add it under "entities" or fix the name.`,
        SECTION.entities,
      );
    }
    if (type.kind === 'named' && this.entities.has(type.name)) {
      this.issues.warning(
        pointerOf(where),
        'awp.type-system.bare-entity',
        `"${type.name}" is read as a custom string type, yet an entity has that name; write object[${type.name}] to reference the entity.`,
        SECTION.entities,
      );
    }
  }

  /** The schema of a type string (an empty, permissive schema when the string is not a type). */
  schema(text: string, where: Where): JsonObject {
    const type = this.parse(text, where);
    if (type === undefined) return {};
    this.check(type, where);
    return awpTypeToSchema(type, this.entities);
  }
}
