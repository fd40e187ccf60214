import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { killAllChildren, NodeChild } from './child';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-support-child-'));
});
afterAll(async () => {
  await killAllChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}

describe('NodeChild', () => {
  it('keeps the output, reads its JSON lines and reports the exit', async () => {
    const c = new NodeChild(
      script(
        'ok.js',
        `console.log(JSON.stringify({ msg: 'ready', port: 7 })); console.error('plain'); process.exitCode = 3;`,
      ),
      [],
    );
    await c.waitUntil('ready', (lines) => lines.some((l) => l.msg === 'ready'), 10_000);
    expect(await c.exited).toEqual({ code: 3, signal: null });
    expect(c.jsonLines()).toEqual([{ msg: 'ready', port: 7 }]);
    expect(c.output()).toContain('plain');
  });

  it('writes to a log file when asked, and stops a process that does not end by itself', async () => {
    const logFile = path.join(dir, 'child.log');
    const c = new NodeChild(
      script('wait.js', `console.log('{"msg":"up"}'); setInterval(() => {}, 1000);`),
      [],
      { logFile },
    );
    await c.waitUntil('up', (lines) => lines.length > 0, 10_000);
    expect(await c.stop('SIGTERM')).toEqual({ code: null, signal: 'SIGTERM' });
    expect(fs.readFileSync(logFile, 'utf8')).toContain('"up"');
  });

  it('rejects a wait when the process exits first, and refuses a script that is not there', async () => {
    const c = new NodeChild(script('quit.js', 'process.exit(1)'), []);
    await expect(c.waitUntil('never', () => false, 10_000)).rejects.toThrow(
      /exited \(1\) before never/,
    );
    expect(() => new NodeChild(path.join(dir, 'nope.js'), [])).toThrow(/missing/);
  });
});
