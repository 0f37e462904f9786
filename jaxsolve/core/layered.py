from typing import NamedTuple
class Layer(NamedTuple): pass
class LayeredRun(NamedTuple): pass
def run_layers(): pass
