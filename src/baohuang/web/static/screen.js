// A screen that shows what one API call returns: "loading" until it comes, its error if
// it fails. Subclasses give load() and render() (history, leaderboard, a player's page).
import { errorText } from './errors.js';

export class DataScreen {
  constructor(app) {
    this.app = app;
    this.data = null;
    this.error = null;
  }

  async mount(root) {
    this.root = root;
    this.render();
    try {
      this.data = await this.load();
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  unmount() {}
}
