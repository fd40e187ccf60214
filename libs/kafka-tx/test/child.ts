/** The crash tests' fixture scripts (test/fixtures/*.js) as child processes: test-support's NodeChild, their JSON stdout lines readable, stderr passed through. */
import * as path from 'node:path';
import { NodeChild } from '@clickstream/test-support';

export { killAllChildren } from '@clickstream/test-support';

export function startFixture(script: string, args: string[]): NodeChild {
  return new NodeChild(path.join(__dirname, 'fixtures', script), args, { inheritStderr: true });
}
