"""The view processors of a context pipeline: deterministic rewrites of a history into a request view,
one module each (what they share is in `base`).

    CapOutputs()                        long tool results keep head and tail
    StripImages(keep=3, chunk=4)        old screenshots leave four turns' worth at a time, behind one placeholder
    StripImages.capped(2, chunk=4)      never more than two images, the older ones leaving two at a time
    CollapseObservations(mark, 2, 3)    old page observations keep only their header line
"""

from stateact.kernel.context.processors.base import Processor, chunked_excess, run_processors
from stateact.kernel.context.processors.cap_outputs import CapOutputs
from stateact.kernel.context.processors.collapse_observations import CollapseObservations
from stateact.kernel.context.processors.strip_images import PLACEHOLDER, StripImages

__all__ = [
    "PLACEHOLDER",
    "CapOutputs",
    "CollapseObservations",
    "Processor",
    "StripImages",
    "chunked_excess",
    "run_processors",
]
