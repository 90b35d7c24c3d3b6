/**
 * Validation issues: what is wrong with a document, where, and which spec says so.
 */

export type Severity = 'error' | 'warning';

export interface ValidationIssue {
  severity: Severity;
  /** JSON Pointer (RFC 6901) to the offending value; `''` is the whole document. */
  pointer: string;
  /** What is wrong and what to do about it, for a person. */
  message: string;
  /** The spec section the rule comes from, e.g. `WoA §4.1`. */
  spec?: string;
  /** A stable machine-readable code, e.g. `woa.agent-id.invalid`. */
  code: string;
  /**
   * The option of the call that fixes it, named in `message` as `optionMention(option)`: a front end may say it its
   * own way (the CLI names its flag).
   */
  option?: IssueOption;
}

/** Options of core's calls that an issue can name as its fix. */
export type IssueOption = 'baseUrl';

/** How a message names an option: `(baseUrl)`. */
export function optionMention(option: IssueOption): string {
  return `(${option})`;
}

export function hasErrors(issues: readonly ValidationIssue[]): boolean {
  return issues.some((issue) => issue.severity === 'error');
}

/** Collects issues for one document while a codec walks it. */
export class IssueCollector {
  readonly issues: ValidationIssue[] = [];

  constructor(private readonly specName: string) {}

  error(pointer: string, code: string, message: string, section?: string, option?: IssueOption): void {
    const issue = this.make('error', pointer, code, message, section);
    if (option !== undefined) issue.option = option;
    this.issues.push(issue);
  }

  warning(pointer: string, code: string, message: string, section?: string): void {
    this.issues.push(this.make('warning', pointer, code, message, section));
  }

  add(issue: ValidationIssue): void {
    this.issues.push(issue);
  }

  get hasErrors(): boolean {
    return hasErrors(this.issues);
  }

  private make(
    severity: Severity,
    pointer: string,
    code: string,
    message: string,
    section?: string,
  ): ValidationIssue {
    const issue: ValidationIssue = { severity, pointer, message, code };
    if (section !== undefined) issue.spec = `${this.specName} ${section}`;
    return issue;
  }
}
