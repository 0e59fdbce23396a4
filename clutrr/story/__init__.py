"""One story from a configuration, a seed and an index: a family, a chain, noise and the rendered
text (:func:`clutrr.story.generator.make_example`). It sits above core (the logic) and render (the
text), and below the pipeline that runs many of them."""
