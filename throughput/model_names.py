"""The models a calibration builds itself, by name (a user's factory is the other choice).

Kept apart from :mod:`throughput.models`, which needs torch and PyG, so that the command
line can offer the names and a calibration file can be read without importing torch.

>>> MODELS
('gin', 'schnet')
"""

MODELS = ("gin", "schnet")
#: Node features of the random inputs a model is timed on (9: OGB molecules' atom features).
DEFAULT_IN_CHANNELS = 9
