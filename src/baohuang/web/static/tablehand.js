// Picking cards in the hand: a tap toggles a card, a tap on a rank's counter toggles all
// its cards, a swipe across the hand sets every card it passes over.  The chosen cards
// are the screen's `selection` (indexes into its view's hand).

export class HandPicker {
  constructor(screen) {
    this.screen = screen;
    this.swipe = null;
  }

  changed() {
    this.screen.message = null;
    this.screen.render();
  }

  toggle(index) {
    const selection = this.screen.selection;
    if (selection.has(index)) selection.delete(index);
    else selection.add(index);
    this.changed();
  }

  // A tap on a rank of the hand: select all its cards, or clear them when all are.
  pickRank(indexes) {
    const selection = this.screen.selection;
    const all = indexes.every((i) => selection.has(i));
    for (const i of indexes) {
      if (all) selection.delete(i);
      else selection.add(i);
    }
    this.changed();
  }

  // Swipe across the hand: the cards passed over take the state the first one gets
  // (select from an unselected card, clear from a selected one).
  swipeStart(ev) {
    const el = ev.target.closest && ev.target.closest('.hand [data-index]');
    if (!el || ev.button > 0) return;
    const index = Number(el.dataset.index);
    this.swipe = { start: index, last: index, select: !this.screen.selection.has(index),
      moved: false };
  }

  swipeMove(ev) {
    const swipe = this.swipe;
    if (!swipe) return;
    const hit = document.elementFromPoint(ev.clientX, ev.clientY);
    const el = hit && hit.closest('.hand [data-index]');
    if (!el) return;
    const index = Number(el.dataset.index);
    if (index === swipe.last) return;
    swipe.last = index;
    const selection = this.screen.selection;
    for (const i of swipe.moved ? [index] : [swipe.start, index]) {
      if (swipe.select) selection.add(i);
      else selection.delete(i);
    }
    swipe.moved = true;
    this.changed();
  }

  // (no click follows a swipe onto a card: the card it started on was redrawn)
  swipeEnd() {
    this.swipe = null;
  }
}
