"""Rich's Markdown made to look like the live reply, for replies in the archive
(docs/tui.md, "The reply").

Its own module so that markdown-it and Rich's Markdown load only when the first reply is
archived, not at start-up.
"""

from __future__ import annotations

from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, ListItem, Markdown
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text


class _Heading(Heading):
    """On the left, two blank rows above, as the live reply draws its headings."""

    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text()  # the second blank row; Rich puts one between blocks
        yield from super().__rich_console__(console, options)


class _Code(CodeBlock):
    """A code block as typed, in one colour, no background, inset like the live fence."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = Text(str(self.text).rstrip("\n"), style="markdown.code_block")
        yield Padding(code, (1, 2))


class _Item(ListItem):
    """A bullet as the live reply draws it: `• ` and the text, not Rich's ` • `."""

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - 2), style=self.style
        )
        bullet_style = console.get_style("markdown.item.bullet", default="none")
        for index, line in enumerate(lines):
            yield Segment("  " if index else "• ", bullet_style)
            yield from line
            yield Segment.line()


class ReplyMarkdown(Markdown):
    """Rich's Markdown drawn as the live `Reply` draws it."""

    elements: ClassVar = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _Code,
        "code_block": _Code,
        "list_item_open": _Item,
    }

    # One parser for all: Rich makes one per Markdown, which costs more than parsing a reply.
    _parser = MarkdownIt().enable("strikethrough").enable("table")

    def __init__(self, markup: str, style: Style) -> None:
        self.markup = markup
        self.parsed = self._parser.parse(markup)
        self.code_theme = self.inline_code_theme = "monokai"  # unused: code is drawn plain
        self.justify = None
        self.style = style
        self.hyperlinks = False
        self.inline_code_lexer = None
