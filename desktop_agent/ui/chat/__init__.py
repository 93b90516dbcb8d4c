"""The chat: user bubbles on the right, assistant turns on the left, streamed in as they come.

- :mod:`.view` — :class:`~.view.ChatView`, the scroll area holding the blocks of a conversation (paging,
  following the stream, the public API the window uses).
- :mod:`.turn` — the two kinds of message block: a user bubble and an assistant turn.
- :mod:`.parts` — the streamed parts of an assistant turn: markdown text and the thinking section.
- :mod:`.cards` — inline cards: an error with its actions, a tool approval.
- :mod:`.widgets` — small widgets: the auto-height text view, copy buttons, tool chips.
- :mod:`.scroll_bar` — the chat's scroll bar, which skips repaints that would draw the same pixels.
- :mod:`.placeholders` — far blocks of a long chat released and rebuilt.
- :mod:`.empty_state` — what a new chat shows.
- :mod:`.style` — the chat's style sheet.
- :mod:`.context` — :class:`~.context.ChatContext`, what the parts need from the view.

Performance (long chats, fast streams):

- One small widget per displayed block (a user message, or the assistant side of one turn), created
  lazily: a loaded conversation materialises only its last :attr:`ChatView.PAGE <.view.ChatView.PAGE>`
  blocks — and of those only the newest that fill the view before the first frame, the others as
  placeholders built right after it; older ones are created a page at a time when the user scrolls to
  the top. Blocks more than two screens away from the viewport are released to same-height placeholders
  and rebuilt from their messages when they come near (:mod:`.placeholders`): a 2,000-message chat
  scrolled to the top keeps a few built blocks, not 2,000.
- While streaming, only the current text part is re-rendered, when the streamed text arrives: the runner
  hands it over once a frame (``AgentRunner.set_batch_ms``, one wake-up of the GUI thread a frame), every
  :data:`~.parts.FRAME_MS` ms (≈ 30 fps) for cheap frames and up to :data:`~.parts.MAX_FRAME_MS` apart as
  frames get costly (``ChatView._pace``: frames take ≈ 3 % of the GUI thread). Only its open block is
  rendered: finished blocks are rendered once, and a long answer's finished blocks move into sealed chunks
  of their own (:class:`~.parts.SealedText`), so a frame costs the same at 1,000 and at 20,000 tokens; plain
  words on the open block's last line, and code in an open fence, are inserted as text without a render
  (``markdown_growth.appends_as_text``, ``markdown_growth.appends_to_fence``). The result is the same document as a full
  render (tests compare every frame of random streams with a fresh render).
- A frame repaints only what changed: the growing widgets repaint only the area a resize uncovers
  (``widgets.repaint_only_changes``), a turn its rounded bottom edge, text views paint their own opaque
  background (nothing behind them repaints), the scroll bar repaints only when its handle moves on screen
  (:mod:`.scroll_bar`), and the opaque chat content follows the answer down by moving its pixels, after the
  frame is painted (``ChatView._settle_frame``) — not the whole visible chat each frame.

Markdown and highlighting come from :mod:`desktop_agent.ui.markdown`, imported on the first render (the
window warms it up right after it shows).
"""
