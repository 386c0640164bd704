import type { Command } from './command.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'TODO',
  usage: 'TODO',
  options: {},
  async run() {
    throw new Error('not implemented yet');
  },
};
