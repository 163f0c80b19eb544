/**
 * Whether an issue's text is blank: nothing a reader can see. White space
 * alone is blank, and so are zero-width and other invisible characters
 * (U+200B, U+2800 …), which would otherwise count as a finding with
 * nothing to fix. The rule is the report schema's own `pattern`, so a JSON
 * report, a Markdown one and an editor agree.
 */
import reportSchema from '../../schemas/review-report.schema.json' with { type: 'json' };

const VISIBLE = new RegExp(reportSchema.properties.issues.items.pattern);

export function isBlankText(text: string): boolean {
  return !VISIBLE.test(text);
}
