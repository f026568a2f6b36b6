/**
 * Upstream's feature files as godog sees them: parsed with Cucumber's own Gherkin parser and
 * compiled into pickles, so Backgrounds, Scenario Outlines (one pickle per Examples row) and
 * inherited tags (feature, rule, scenario, examples) behave as in upstream's runs.
 */
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator, type Pickle } from '@cucumber/messages';

/** One step of a pickle, with its doc string or data table (godog's last step argument). */
export interface PickleStepView {
  /** The step text without its keyword, as the step regexes see it. */
  text: string;
  docString?: string;
  /** Rows of cells, header row first. */
  dataTable?: string[][];
}

/** One runnable scenario: a Scenario, or one Examples row of a Scenario Outline. */
export interface ParsedScenario {
  /** The pickle id: incrementing over every file parsed by one parseFeatures call, like godog's. */
  id: string;
  /** The feature file's base name without extension (upstream's scenario annotation "feature"). */
  featureName: string;
  uri: string;
  name: string;
  /** Tag names with their "@", the feature's first. */
  tags: string[];
  steps: PickleStepView[];
}

function view(pickle: Pickle, featureName: string): ParsedScenario {
  return {
    id: pickle.id,
    featureName,
    uri: pickle.uri,
    name: pickle.name,
    tags: pickle.tags.map((t) => t.name),
    steps: pickle.steps.map((s) => {
      const step: PickleStepView = { text: s.text };
      if (s.argument?.docString !== undefined) step.docString = s.argument.docString.content;
      if (s.argument?.dataTable !== undefined) step.dataTable = s.argument.dataTable.rows.map((r) => r.cells.map((c) => c.value));
      return step;
    }),
  };
}

/**
 * Parses feature files (uri and text) into their scenarios, in file then source order. Ids
 * count up across all the files, as one godog run's do. Throws on a Gherkin syntax error,
 * naming the file.
 */
export function parseFeatures(files: readonly { uri: string; text: string }[]): ParsedScenario[] {
  const newId = IdGenerator.incrementing();
  const out: ParsedScenario[] = [];
  for (const file of files) {
    const parser = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher());
    let document;
    try {
      document = parser.parse(file.text);
    } catch (err) {
      throw new Error(`${file.uri}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const base = file.uri.split('/').at(-1) ?? file.uri;
    const featureName = base.replace(/\.[^.]*$/, '');
    for (const pickle of compile(document, file.uri, newId)) out.push(view(pickle, featureName));
  }
  return out;
}
