"""The models a calibration builds itself, by name (a user's factory is the other choice).

Kept apart from :mod:`throughput.models`, which needs torch and PyG, so that the command
line can offer the names and a calibration file can be read without importing torch.

>>> MODELS
('gin', 'schnet')
"""

MODELS = ("gin", "schnet")
