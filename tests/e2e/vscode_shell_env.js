// vscode_shell_env.js SHELL — what VS Code (and Cursor, Windsurf: its forks) does at start to
// take the login environment from the user's shell (src/vs/platform/shell/node/shellEnv.ts,
// resolveUnixShellEnv): SHELL -i -l -c '<node> -p "MARK" + JSON.stringify(process.env) + "MARK"'
// spawned detached, stdin ignored (/dev/null), stdout and stderr pipes, with
// VSCODE_RESOLVING_ENVIRONMENT=1; an exit status or signal, or no marks, is a failure. Prints
// the environment VS Code would adopt (JSON), or "error: …" and exits 1.
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const shell = process.argv[2];
const mark = crypto.randomBytes(6).toString('hex');
const regex = new RegExp(mark + '({.*})' + mark);
const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1', ELECTRON_NO_ATTACH_CONSOLE: '1',
	VSCODE_RESOLVING_ENVIRONMENT: '1' };
const command = `'${process.execPath}' -p '"${mark}" + JSON.stringify(process.env) + "${mark}"'`;
const child = spawn(shell, ['-i', '-l', '-c', command],
	{ detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
const out = [], err = [];
const timer = setTimeout(() => { console.log('error: no answer in 60 s'); process.exit(1); }, 60000);
child.on('error', (e) => { console.log('error: ' + e.message); process.exit(1); });
child.stdout.on('data', (b) => out.push(b));
child.stderr.on('data', (b) => err.push(b));
child.on('close', (code, signal) => {
	clearTimeout(timer);
	const raw = Buffer.concat(out).toString('utf8');
	if (code || signal) {
		console.log(`error: Unexpected exit code from spawned shell (code ${code}, signal ${signal})`);
		process.exit(1);
	}
	const m = regex.exec(raw);
	if (!m) {
		console.log('error: no environment in the output: ' + raw.slice(0, 300));
		process.exit(1);
	}
	const e = JSON.parse(m[1]);
	delete e.ELECTRON_RUN_AS_NODE;
	delete e.ELECTRON_NO_ATTACH_CONSOLE;
	delete e.VSCODE_RESOLVING_ENVIRONMENT;
	console.log(JSON.stringify(e));
});
