/**
 * Runs the Go oracle (test/goyaml/main.go) on a batch of inputs and returns its answers in
 * order. The protocol is main.go's: base64 inputs in, JSON texts and error texts out.
 */
import { runCommand } from '../../pkg/olmv1/localstack/index.ts';

/** One request: a single document for YAMLToJSON, or a whole stream for YAMLOrJSONDecoder. */
export interface OracleRequest {
  mode: 'convert' | 'stream';
  input: string | Uint8Array;
}

/** What the Go libraries answered (fields absent when Go left them empty). */
export interface OracleAnswer {
  json?: string;
  docs?: string[];
  error?: string;
}

/** Feeds every request to the oracle binary in one run. Throws when the binary fails. */
export async function askGo(binary: string, requests: readonly OracleRequest[]): Promise<OracleAnswer[]> {
  const input = JSON.stringify(requests.map((r) => ({ mode: r.mode, input: Buffer.from(r.input).toString('base64') })));
  const { stdout } = await runCommand(binary, [], { input, timeoutMs: 120_000 });
  const answers = JSON.parse(stdout) as OracleAnswer[];
  if (answers.length !== requests.length) throw new Error(`the Go oracle answered ${answers.length} of ${requests.length} requests`);
  return answers;
}
