"""A frozen release: the named configurations (:mod:`.configs`) built by the pipeline (:mod:`.build`),
verified (:mod:`.figures`), described by a dataset card (:mod:`.card`) and fingerprinted (:mod:`.manifest`);
:mod:`.run` writes one or rebuilds and compares it."""
