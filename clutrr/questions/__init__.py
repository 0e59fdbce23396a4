"""Question forms beyond "how is Y related to X?": who (one person), which people (a set), how
many (a count) and yes/no, each asked of a built story and answered from its stated facts alone.

:mod:`forms` names the forms and words their questions, :mod:`proofs` derives a form's answer
from a story's facts under the KB's sound rules (the verifier's notion), and :mod:`pick` chooses
a question a story answers exactly: where what its facts entail is what the family truly holds.
"""
