import Ferry
