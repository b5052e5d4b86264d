import Ferry
print("ferry")
