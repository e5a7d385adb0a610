// Starts the telegram-test-api emulator on the port given as the first
// argument, prints "ready" once it listens, and stops when stdin closes
// (the Go test that started it has finished or died).
const TelegramServer = require('telegram-test-api');

const port = Number(process.argv[2]);
const server = new TelegramServer({ port, host: '127.0.0.1', storeTimeout: 600 });
server.start().then(() => {
  process.stdout.write('ready\n');
});
process.stdin.resume();
process.stdin.on('end', () => {
  server.stop().finally(() => process.exit(0));
});
