"""Story graphs: networkx views and pictures of a story, from any of the forms it comes in.

    from clutrr.graph import to_networkx, from_networkx, draw_story
    G = to_networkx(row)            # a CSV StoryRow, a JSONL record, an Example or an eval item
    record = from_networkx(G)       # back to the typed record
    draw_story(row, "story.svg")    # or .png

networkx and matplotlib (the ``graph`` extra) are imported only when a function needs them.
See docs/graph.md.
"""
from clutrr.graph.convert import from_networkx, to_networkx
from clutrr.graph.output import draw_stories, draw_story
from clutrr.graph.story import infer_noise_kinds, typed_record

__all__ = ["draw_stories", "draw_story", "from_networkx", "infer_noise_kinds", "to_networkx", "typed_record"]
