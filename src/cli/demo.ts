import type { Command } from './command.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'TODO',
  usage: 'TODO',
  options: {},
  async run() {
    throw new Error('not implemented yet');
  },
};
