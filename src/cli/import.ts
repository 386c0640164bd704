import type { Command } from './command.js';

export const importCommand: Command = {
  name: 'import',
  summary: 'TODO',
  usage: 'TODO',
  options: {},
  async run() {
    throw new Error('not implemented yet');
  },
};
