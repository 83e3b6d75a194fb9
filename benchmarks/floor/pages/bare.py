from floor_common import slider

slider()
