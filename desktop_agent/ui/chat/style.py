"""The chat's style sheet: bubbles, turn headers, chips, cards, the empty state, from the theme."""

from __future__ import annotations

from desktop_agent.ui import theme


def chat_style_sheet(th: theme.Theme) -> str:
    """The style sheet set on the chat's content widget (re-derived on a light/dark switch)."""
    return f"""
            QWidget#chatContent {{ background: {th.base}; }}
            QFrame#userBubble {{ background: {th.user_bubble}; border: 1px solid {th.user_border};
                                 border-radius: 14px; }}
            QFrame#assistantTurn {{ background: {th.assistant_bubble}; border: 1px solid {th.assistant_border};
                                    border-radius: 14px; }}
            QTextBrowser {{ color: {th.text}; }}
            QTextBrowser#thinkingText {{ color: {th.muted}; }}
            QLabel#turnTitle {{ font-weight: 600; color: {th.text}; }}
            QLabel#turnMeta {{ color: {th.muted}; }}
            QLabel#statusTag {{ color: {th.warn}; border: 1px solid {th.warn}; border-radius: 8px;
                                padding: 0px 6px; font-size: 11px; }}
            QLabel#typing {{ color: {th.muted}; }}
            QLabel#notice {{ color: {th.warn}; font-style: italic; }}
            QToolButton#thinkingToggle {{ color: {th.muted}; border: none; padding: 2px 0px; }}
            QToolButton#toolChip {{ color: {th.text}; background: {th.code_bg}; border: 1px solid {th.assistant_border};
                                    border-radius: 11px; padding: 3px 10px 3px 6px; }}
            QToolButton#toolChip:hover {{ border-color: {th.accent}; }}
            QToolButton#copyButton {{ border: none; border-radius: 6px; padding: 3px; }}
            QToolButton#copyButton:hover {{ background: {th.faint}; }}
            QToolButton#messageActions {{ border: none; border-radius: 6px; padding: 3px; }}
            QToolButton#messageActions:hover {{ background: {th.faint}; }}
            QToolButton#messageActions::menu-indicator {{ image: none; width: 0px; }}
            QToolButton#branchStep {{ color: {th.text}; border: none; border-radius: 6px; padding: 1px 5px; }}
            QToolButton#branchStep:hover {{ background: {th.faint}; }}
            QToolButton#branchStep:disabled {{ color: {th.muted}; }}
            QLabel#branchPosition {{ color: {th.muted}; }}
            QFrame#errorCard {{ background: {th.error_bg}; border: 1px solid {th.error_border}; border-radius: 12px; }}
            QLabel#errorTitle {{ font-weight: 600; color: {th.text}; }}
            QLabel#errorText {{ color: {th.text}; }}
            QFrame#approvalCard {{ background: {th.code_bg}; border: 1px solid {th.accent}; border-radius: 12px; }}
            QFrame#questionCard {{ background: {th.code_bg}; border: 1px solid {th.accent}; border-radius: 12px; }}
            QLabel#emptyTitle {{ font-size: 22px; font-weight: 600; color: {th.text}; }}
            QLabel#emptyHint {{ color: {th.muted}; }}
            QPushButton#suggestion {{ color: {th.text}; background: {th.assistant_bubble};
                                      border: 1px solid {th.assistant_border}; border-radius: 14px;
                                      padding: 7px 16px; }}
            QPushButton#suggestion:hover {{ border-color: {th.accent}; }}
            QPushButton#presetChoice {{ color: {th.muted}; background: transparent; border: 1px solid {th.faint};
                                        border-radius: 11px; padding: 3px 12px; }}
            QPushButton#presetChoice:hover {{ border-color: {th.accent}; color: {th.text}; }}
            QPushButton#presetChoice:checked {{ color: {th.text}; background: {th.user_bubble};
                                                border-color: {th.accent}; }}
            QPushButton#loadEarlier {{ color: {th.link}; border: none; padding: 4px 10px; }}
            """
