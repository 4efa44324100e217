"""The torch.compile baseline (inductor, default mode): one kernel file for every problem.

kb-validate hands a torch-compile kernel its problem's module as `kb_reference`; this ModelNew builds that
module's reference Model (same arguments, same seeded initialisation) and compiles its forward. Generated
and kept in step by `kb-validate catalogue baseline --write`.
"""

import torch


class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()
        from kb_reference import Model  # imported here: the module exists only while a problem is evaluated

        self.reference = Model(*args)
        self._compiled_forward = torch.compile(self.reference.forward)

    def forward(self, *inputs):
        return self._compiled_forward(*inputs)
