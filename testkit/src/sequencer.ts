// Runs component tests (infra/, packages/) before system tests (services/ and the harness: lab/, control/, load/), and the fault
// lab last: see services-per-suite.ts and test-kind.ts. Within each group, files keep a stable
// alphabetical order.
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { runRank } from "./test-kind.ts";

export class ComponentsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (f: TestSpecification) => `${runRank(f.moduleId)}:${f.moduleId}`;
    return [...files].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
}
